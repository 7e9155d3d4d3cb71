// Fault suite: without --follow-fork, processes roofprof does not follow run
// without the agent: no LD_PRELOAD entry of it and none of the ROOFPROF_AGENT_* variables
// roofprof gives the agent in their environment (a user's own variables, ROOFPROF_ ones included,
// pass through like any other: the suite may run with ROOFPROF_HOST_CACHES set, for one).
// (Placeholders of -o: tests/unit/common/launcher_test.cpp.)
#include "harness.hpp"

namespace it {
namespace {

void expect_clean_child_environment(const std::vector<std::string>& mode) {
  Sandbox sb;
  std::vector<std::string> args{"run", "--backend", "time", "-q", "-r", "getenv"};
  args.insert(args.end(), mode.begin(), mode.end());
  for (const char* a : {"--", "/bin/sh", "-c", "env > child.env; true"}) args.push_back(a);
  auto r = sb.roofprof(args);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  std::string env = read_text(sb.path("child.env"));
  ASSERT_NE(env.find("PATH="), std::string::npos) << env;
  EXPECT_EQ(env.find("ROOFPROF_AGENT_"), std::string::npos) << env;
  EXPECT_EQ(env.find("libroofprof-preload"), std::string::npos) << env;
}

TEST(FaultEnv, AgentStaysOutOfUnfollowedChildren) { expect_clean_child_environment({"--no-ptrace"}); }
TEST(FaultEnv, AgentStaysOutOfUnfollowedChildrenCombined) { expect_clean_child_environment({}); }

// The user's own LD_PRELOAD entries stay.
TEST(FaultEnv, UsersPreloadStays) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--no-ptrace", "-r", "getenv", "--", "/bin/sh", "-c",
                        "env > child.env; true"},
                       RunOptions{.env = {{"LD_PRELOAD", "libm.so.6"}}});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  std::string env = read_text(sb.path("child.env"));
  EXPECT_NE(env.find("LD_PRELOAD=libm.so.6\n"), std::string::npos) << env;
  EXPECT_EQ(env.find("ROOFPROF_AGENT_"), std::string::npos) << env;
}

}  // namespace
}  // namespace it
