// run --group-by caller[:DEPTH]: a function's calls split by their call paths, read from the
// stack at the entry breakpoint (the return address, then libunwind through ptrace). The
// fixture calls `work` 3 times from phase_a (callers.c:12) and 5 times from phase_b
// (callers.c:19); W = 3n per call.
#include "harness.hpp"

namespace it {
namespace {

struct GroupSeen {
  int64_t calls;
  std::vector<std::string> path;
  std::optional<double> flops;
};

std::map<std::string, GroupSeen> groups_of(const json& reg) {
  std::map<std::string, GroupSeen> out;
  if (!reg.contains("groups")) return out;
  for (const auto& g : reg["groups"]) {
    GroupSeen s{g["calls"].get<int64_t>(), {}, std::nullopt};
    if (g.contains("call_path"))
      for (const auto& f : g["call_path"]) s.path.push_back(f.get<std::string>());
    if (g["flops"].is_number()) s.flops = g["flops"].get<double>();
    out[g["key"].get<std::string>()] = s;
  }
  return out;
}

json run_grouped(Sandbox& sb, const std::string& fixture_name, const std::string& how,
                 const std::vector<std::string>& more = {}, bool unprivileged = false) {
  std::vector<std::string> args{"run", "-q", "--group-by", how, "-r", "work"};
  args.insert(args.end(), more.begin(), more.end());
  args.insert(args.end(), {"--", fixture(fixture_name), "1000"});
  RunOptions ro;
  ro.unprivileged = unprivileged;
  auto r = sb.roofprof(args, ro);
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  return region(load_result(r), "work");
}

// Every mechanism that measures a call finds its caller: a breakpoint (the tracer reads the
// return address), an entry patch and a GOT hook (the in-process agent records it; with
// --no-ptrace the process is gone before the names are made, from the modules the agent saw).
TEST(CallerGroups, TwoCallSitesGiveTwoGroupsWithTheirCallsInEveryMode) {
  struct Mode {
    std::vector<std::string> options;
    std::string fixture, mechanism;
  };
  for (const Mode& m : {Mode{{"--no-preload"}, "run_callers", "breakpoint"}, Mode{{}, "run_callers", "patch"},
                        Mode{{"--no-ptrace"}, "run_callers_lib", "agent"}}) {
    Sandbox sb;
    std::vector<std::string> more{"--backend", "time"};
    more.insert(more.end(), m.options.begin(), m.options.end());
    json reg = run_grouped(sb, m.fixture, "caller", more);
    EXPECT_EQ(reg["sources"]["calls"], m.mechanism) << reg.dump();
    auto g = groups_of(reg);
    ASSERT_EQ(g.size(), 2u) << m.mechanism << " " << reg.dump();
    EXPECT_EQ(g["<- phase_a (callers.c:12)"].calls, 3) << m.mechanism;
    EXPECT_EQ(g["<- phase_b (callers.c:19)"].calls, 5) << m.mechanism;
    EXPECT_EQ(g["<- phase_a (callers.c:12)"].path, std::vector<std::string>{"phase_a (callers.c:12)"}) << m.mechanism;
  }
}

// -O2 -fomit-frame-pointer: the callers' frames are found with DWARF CFI, not rbp.
TEST(CallerGroups, DeeperPathsUnwindWithoutFramePointers) {
  Sandbox sb;
  auto g = groups_of(run_grouped(sb, "run_callers_O2", "caller:2", {"--backend", "time"}));
  ASSERT_EQ(g.size(), 2u) << ::testing::PrintToString(g.size());
  EXPECT_EQ(g["<- phase_a (callers.c:12) <- main (callers.c:27)"].calls, 3);
  EXPECT_EQ(g["<- phase_b (callers.c:19) <- main (callers.c:28)"].calls, 5);
  EXPECT_EQ(g["<- phase_b (callers.c:19) <- main (callers.c:28)"].path,
            (std::vector<std::string>{"phase_b (callers.c:19)", "main (callers.c:28)"}));
}

// Each group's exact W from the emulated run (its calls line up with the native run's), as an
// ordinary user.
TEST(CallerGroups, EmulatedWorkPerCallPathAsAnOrdinaryUser) {
  Sandbox sb;
  auto g = groups_of(run_grouped(sb, "run_callers_O2", "caller", {"--backend", "emul", "--no-cache-sim"}, true));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g["<- phase_a (callers.c:12)"].flops, 3 * 3000.0);
  EXPECT_EQ(g["<- phase_b (callers.c:19)"].flops, 5 * 3000.0);
}

TEST(CallerGroups, WhatCannotGroupByCallerIsBadInput) {
  Sandbox sb;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"run", "--group-by", "caller:2", "--no-ptrace", "-r", "work", "--", fixture("run_callers_lib")},
           {"run", "--group-by", "caller:0", "-r", "work", "--", fixture("run_callers")},
           {"run", "--group-by", "callee", "-r", "work", "--", fixture("run_callers")}}) {
    auto r = sb.roofprof(args);
    EXPECT_EQ(r.exit_code(), 2) << r.diag();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();
  }
}

}  // namespace
}  // namespace it
