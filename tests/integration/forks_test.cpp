// Child processes. Without --follow-fork a forked child must run unharmed (no breakpoint left
// in its copy of the code) and is not measured; with --follow-fork its calls count too, also
// after an exec. A vfork-like clone (system()) must not disturb the parent's regions.
#include "harness.hpp"

namespace it {
namespace {

RunResult run_forks(Sandbox& sb, const std::string& mode, bool follow) {
  std::vector<std::string> args{"run", "--region", "fork_work"};
  if (follow) args.push_back("--follow-fork");
  args.insert(args.end(), {"--", fixture("run_forks"), mode});
  return sb.roofprof(args);
}

void expect_calls(const std::string& mode, bool follow, int64_t want) {
  Sandbox sb;
  auto r = run_forks(sb, mode, follow);
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("child status ok=1"), std::string::npos) << r.diag();
  if (mode != "system") {
    EXPECT_NE(r.out.find("child done"), std::string::npos) << r.diag();
  }
  json reg = region(load_result(r), "fork_work");
  if (reg.is_null()) return;
  EXPECT_EQ(calls(reg), want) << mode << (follow ? " --follow-fork" : "") << ": " << reg.dump();
}

TEST(RunForks, ForkedChildRunsUnmeasuredWithoutFollowFork) { expect_calls("fork", false, 3); }
TEST(RunForks, ForkedChildMeasuredWithFollowFork) { expect_calls("fork", true, 5); }
TEST(RunForks, ExecedChildRunsUnmeasuredWithoutFollowFork) { expect_calls("exec", false, 3); }
TEST(RunForks, ExecedChildMeasuredWithFollowFork) { expect_calls("exec", true, 5); }
TEST(RunForks, SystemCallDoesNotDisturbTheParent) { expect_calls("system", false, 3); }
TEST(RunForks, SystemCallWithFollowFork) { expect_calls("system", true, 3); }

}  // namespace
}  // namespace it
