// Hardware counters read in-process by the agent (docs/preload.md, "Counting"): `roofprof run
// --backend perf` on 10^5 calls of a patched function, with the kernel's PMU scripted for
// roofprof (ROOFPROF_SCRIPTED_PMU: a Skylake-SP, so the skx event set) and for the agent
// (ROOFPROF_AGENT_SCRIPTED_PMU, preload/agent/scripted_pmu.c: the perf_event_mmap_page, rdpmc
// and rdtsc of each hardware group). Every read of a group is one scripted step; a call spans
// one step of its thread's groups, so each call counts the script's per-step numbers.
#include "harness.hpp"

namespace it {
namespace {

constexpr int kCalls = 100000;

// FP_ARITH scalar 10 (umask 0x03: double and single merged) and 128-bit single + 256-bit
// double 2 (0x18, 4 flops each) a step (group 1: W's first four events, Skylake-SP's 4 counters
// cannot hold its five pinned), L2 lines in 2 (group 2): W = 10 + 4 * 2 = 18 flops a call. Even
// numbers: half a step on the counters counts exactly half of them.
const std::string kCounts = "count raw 0x3c7 10\ncount raw 0x18c7 2\ncount raw 0x1ff1 2\n";
// Each group: a whole step on its counters, half a step then rotated out (a read then finds
// index 0), off for half a step then back (the next read finds it on a counter again), a whole
// step: every step runs some of the time, so every call's scaled counts are whole.
const std::string kRotating = "steps 1 0.5/out 0.5 1\n";

struct Measured {
  json result, region;
  std::string err;
};

Measured run_agent(const std::string& agent_script, const std::vector<std::string>& options = {},
                   const std::vector<std::string>& program = {"calls", std::to_string(kCalls)}) {
  Sandbox sb;
  write_text(sb.path("pmu.script"), "cpu GenuineIntel 6 0x55\n");
  write_text(sb.path("agent.script"), agent_script);
  RunOptions ro;
  ro.env["ROOFPROF_SCRIPTED_PMU"] = sb.path("pmu.script").string();
  ro.env["ROOFPROF_AGENT_SCRIPTED_PMU"] = sb.path("agent.script").string();
  ro.env["LIBPFM_FORCE_PMU"] = "skx";
  ro.timeout = std::chrono::seconds(120);
  // --events: counters on every call, however short (without it a region whose calls are shorter
  // than 50x what the counters add to one becomes clock-only: docs/preload.md).
  std::vector<std::string> args{"run", "--backend", "perf", "--region", "pre_work", "--events", "task-clock"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.push_back(fixture("pre_app"));
  args.insert(args.end(), program.begin(), program.end());
  const RunResult r = sb.roofprof(args, ro);
  if (r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos) return {};
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  Measured out;
  out.err = r.err;
  out.result = load_result(r);
  out.region = region(out.result, "pre_work");
  return out;
}

// The region was measured by its entry patch alone (no breakpoint site: `sources.calls` would
// name it), in-process: no ptrace stop per call. `probe_cost` appears once a region's stops
// cost a quarter of a 0.2 s run (docs/result-schema.md): 10^5 calls through breakpoints would.
void expect_in_process(const json& reg) {
  EXPECT_EQ(calls(reg), kCalls) << reg.dump();
  EXPECT_EQ(reg["sources"]["calls"], "patch") << reg.dump();
  const int64_t stops = reg.contains("probe_cost") ? reg["probe_cost"]["ptrace_stops"].get<int64_t>() : 0;
  EXPECT_LT(stops, kCalls / 100) << reg.dump();
}

void expect_scripted_counts(const json& reg) {
  EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 18.0 * kCalls) << reg.dump();
  EXPECT_DOUBLE_EQ(reg["flops_by_class"]["fp_scalar"].get<double>(), 10.0 * kCalls);
  EXPECT_DOUBLE_EQ(reg["flops_by_class"]["fp_x4"].get<double>(), 8.0 * kCalls);
  EXPECT_DOUBLE_EQ(reg["bytes"]["L3"]["read"].get<double>(), 128.0 * kCalls) << reg.dump();
}

#define SKIP_WITHOUT_SEAMS(r) \
  if ((r).result.is_null()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS"

TEST(AgentRdpmc, PatchedCallsCountTheScriptExactlyWithoutStops) {
  // The pages are usable (cap_user_rdpmc, cap_user_time): the agent reads them, and the
  // scripted PMU fails a read(2) of a group whose pages are usable, so the counts can only
  // have come through the page path.
  const Measured r = run_agent(kCounts, {"--scope", "thread"});
  SKIP_WITHOUT_SEAMS(r);
  expect_in_process(r.region);
  expect_scripted_counts(r.region);
  EXPECT_EQ(r.region["sources"]["flops"].get<std::string>().find("scaled"), std::string::npos) << r.region.dump();
}

TEST(AgentRdpmc, GroupRotatedOutBetweenTwoReadsStillCountsExactly) {
  // Reads find the group off its counters (index 0: the count is the page's offset), right
  // after it comes back (rdpmc again), and the rotation itself moves the page's seqlock under
  // the reader. Scaled (the groups ran part of the time, and W says so), and exact.
  const Measured r = run_agent(kCounts + kRotating, {"--scope", "thread"});
  SKIP_WITHOUT_SEAMS(r);
  expect_in_process(r.region);
  expect_scripted_counts(r.region);
  EXPECT_NE(r.region["sources"]["flops"].get<std::string>().find("scaled"), std::string::npos) << r.region.dump();
}

TEST(AgentRdpmc, WithoutUserRdpmcTheGroupIsReadWithReadAndCountsTheSame) {
  const Measured r = run_agent(kCounts + kRotating + "caps 0 1\n", {"--scope", "thread"});
  SKIP_WITHOUT_SEAMS(r);
  expect_in_process(r.region);
  expect_scripted_counts(r.region);
}

TEST(AgentRdpmc, ProcessScopeOfOneThreadReadsItsOwnGroupsPages) {
  // One thread: the process's hardware counts are its own groups', read through their pages
  // (inherited groups cannot be mapped, so none is opened until a second thread starts: the
  // script makes opening one fail, and the script's read(2) of a mapped group fails too).
  const Measured r = run_agent(kCounts + kRotating + "inherit 0\n");
  SKIP_WITHOUT_SEAMS(r);
  expect_in_process(r.region);
  expect_scripted_counts(r.region);
}

TEST(AgentRdpmc, EveryThreadReadsItsOwnGroups) {
  // 4 threads of 2500 calls: each thread's groups are its own (opened at its first call,
  // mapped, rotated on their own schedule), and each call counts one step of its thread's.
  const Measured r = run_agent(kCounts + kRotating, {"--scope", "thread"}, {"threads", "4", "2500"});
  SKIP_WITHOUT_SEAMS(r);
  EXPECT_EQ(calls(r.region), 10000) << r.region.dump();
  EXPECT_EQ(threads(r.region), 4);
  EXPECT_EQ(r.region["sources"]["calls"], "patch");
  EXPECT_DOUBLE_EQ(r.region["flops"].get<double>(), 18.0 * 10000) << r.region.dump();
  EXPECT_DOUBLE_EQ(r.region["bytes"]["L3"]["read"].get<double>(), 128.0 * 10000);
}

TEST(AgentRdpmc, ForkedChildCountsWithGroupsOfItsOwn) {
  // --follow-fork, process scope: 1000 calls in the parent, 1000 in the child, each process
  // with one thread reading its own process's groups.
  const Measured r = run_agent(kCounts + kRotating, {"--follow-fork"}, {"fork", "1000"});
  SKIP_WITHOUT_SEAMS(r);
  EXPECT_EQ(calls(r.region), 2000) << r.region.dump();
  EXPECT_EQ(r.region["sources"]["calls"], "patch");
  EXPECT_DOUBLE_EQ(r.region["flops"].get<double>(), 18.0 * 2000) << r.region.dump();
}

TEST(AgentRdpmc, ProcessScopeWithThreadsContinuesOnInheritedGroups) {
  // The first pthread_create moves the process's hardware counts to inherited groups: without
  // them (the script refuses them) the process's counts are unknown, never wrong.
  const Measured with = run_agent(kCounts, {}, {"threads", "2", "500"});
  SKIP_WITHOUT_SEAMS(with);
  EXPECT_EQ(calls(with.region), 1000) << with.region.dump();
  EXPECT_TRUE(with.region["flops"].is_number()) << with.region.dump();
  const Measured without = run_agent(kCounts + "inherit 0\n", {}, {"threads", "2", "500"});
  EXPECT_EQ(calls(without.region), 1000);
  EXPECT_TRUE(without.region["flops"].is_null()) << without.region.dump();
}

TEST(AgentRdpmc, NoPtraceCountsHardwareEventsThroughTheGotHook) {
  // The agent alone (--no-ptrace): the same groups, through its GOT hook of pre_work.
  const Measured r = run_agent(kCounts + kRotating, {"--no-ptrace", "--scope", "thread"}, {"calls", "10000"});
  SKIP_WITHOUT_SEAMS(r);
  EXPECT_EQ(calls(r.region), 10000) << r.region.dump();
  EXPECT_EQ(r.region["sources"]["calls"], "agent");
  EXPECT_DOUBLE_EQ(r.region["flops"].get<double>(), 18.0 * 10000) << r.region.dump();
}

TEST(AgentRdpmc, WithoutTheAgentsScriptHardwareEventsStayOnBreakpoints) {
  // The agent opens its events in the kernel, which has no PMU here: without a script of its
  // own the run keeps the hardware events to the tracer (breakpoints), as on a machine where
  // the agent cannot count them.
  Sandbox sb;
  write_text(sb.path("pmu.script"), "cpu GenuineIntel 6 0x55\n" + kCounts);
  RunOptions ro;
  ro.env["ROOFPROF_SCRIPTED_PMU"] = sb.path("pmu.script").string();
  ro.env["LIBPFM_FORCE_PMU"] = "skx";
  const RunResult r = sb.roofprof({"run", "--backend", "perf", "--region", "pre_work", "--", fixture("pre_app"),
                                   "calls", "20"},
                                  ro);
  if (r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json reg = region(load_result(r), "pre_work");
  EXPECT_EQ(reg["sources"]["calls"], "breakpoint") << reg.dump();
}

}  // namespace
}  // namespace it
