// Fault suite: roofprof's own resources grow with the program (or
// fail soft): scratch pages for breakpoints with thousands of threads and with child
// processes that run shell pipelines, and more than 64 regions given to the in-process agent.
#include "harness.hpp"

namespace it {
namespace {

// More than 64 regions: 69 other function regions come first; the agent still measures the 70th (it
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
  // 69 names are never found: an error once the program has run (docs/methodology.md, "Unknown
  // names"), after the result is written with the 70th region's calls.
  ASSERT_EQ(r.exit_code(), 2) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "pre_work")), 7) << r.diag();
}

// Thousands of threads in turn: 10,000 threads, each calling the region once and ending; their
// return probes and the scratch slots of their breakpoints must not run out (the run used to
// abort with "cannot map a scratch page", the program SIGKILLed), nor the counts of the threads
// that exited inside the process's. Counters are asked for (--events): thread_work's calls are
// far shorter than what reading them costs, which would otherwise leave them clock-only.
TEST(FaultScale, TenThousandShortLivedThreads) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "-e", "task-clock", "--region", "thread_work", "--",
                        fixture("run_threads"), "10000", "spawn"},
                       RunOptions{.timeout = 240s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["complete"], true);
  json reg = region(doc, "thread_work");
  EXPECT_EQ(calls(reg), 10000) << r.diag();
  EXPECT_EQ(threads(reg), 10000);
  EXPECT_TRUE(reg["counters"]["task-clock"].is_number()) << reg.dump().substr(0, 2000);
}

// Thousands of threads in the region at once: 2000 of them (each waits inside it for the others),
// in the default scope: every call counted, and the region's task-clock known (a thread the agent
// could give no counters of its own, when descriptors run short, still counts through the
// process's).
TEST(FaultScale, TwoThousandThreadsInTheRegionAtOnce) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--region", "held_work", "--", fixture("run_threads"), "2000",
                        "together"},
                       RunOptions{.timeout = 240s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["complete"], true);
  json reg = region(doc, "held_work");
  EXPECT_EQ(calls(reg), 2000) << r.diag();
  EXPECT_EQ(threads(reg), 2000);
  EXPECT_TRUE(reg["counters"]["task-clock"].is_number()) << reg.dump().substr(0, 2000);
  EXPECT_GT(reg["counters"]["task-clock"].get<double>(), 0);
}

// Many processes: followed children that run shell pipelines (fork + exec of several programs).
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
