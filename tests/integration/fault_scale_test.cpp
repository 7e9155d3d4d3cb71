// Fault suite, issue 18 items 5 and 6: roofprof's own resources grow with the program (or
// fail soft): scratch pages for breakpoints with thousands of threads and with child
// processes that run shell pipelines, and more than 64 regions given to the in-process agent.
#include "harness.hpp"

namespace it {
namespace {

// Item 6: 69 other function regions come first; the agent still measures the 70th (it
// ignored every region after the 64th before).
TEST(FaultScale, SeventyRegionsWithTheAgent) {
  Sandbox sb;
  std::vector<std::string> args{"run", "--no-ptrace", "--backend", "time", "-q"};
  for (int i = 0; i < 69; ++i) {
    args.push_back("--region");
    args.push_back("pre_absent_" + std::to_string(i));
  }
  for (const char* a : {"--region", "pre_work", "--"}) args.push_back(a);
  args.push_back(fixture("pre_app"));
  args.push_back("calls");
  args.push_back("7");
  auto r = sb.roofprof(args);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "pre_work")), 7) << r.diag();
}

// Item 5: 5000 threads, each calling the region once and ending; their return probes and the
// scratch slots of their breakpoints must not run out (the run used to abort with "cannot map
// a scratch page", the program SIGKILLed).
TEST(FaultScale, FiveThousandShortLivedThreads) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--region", "thread_work", "--", fixture("run_threads"), "5000",
                        "spawn"},
                       RunOptions{.timeout = 240s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(calls(region(doc, "thread_work")), 5000) << r.diag();
}

// Item 5: followed children that run shell pipelines (fork + exec of several programs).
TEST(FaultScale, FollowForkShellPipelines) {
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    Sandbox sb;
    auto r = sb.roofprof({"run", "--backend", "time", "-q", "--follow-fork", "-r", "getenv", "--", "/bin/sh", "-c",
                          "env | cat >/dev/null; env | cat | cat >/dev/null"});
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json doc = load_result(r);
    EXPECT_EQ(doc["complete"], true) << r.diag();
    EXPECT_EQ(r.err.find("scratch"), std::string::npos) << r.diag();
  }
}

}  // namespace
}  // namespace it
