// roofprof run --no-ptrace --backend emul: the emulated run marks regions with the in-process
// agent too (client requests to the valgrind tool), so a region covers the same calls as in
// the native agent run; the agent's own instructions count nowhere, so the counts equal those
// of the tool's entry probes (the breakpoint run's emulated twin) exactly.
#include <cmath>

#include "harness.hpp"

namespace it {
namespace {

RunResult emul_run(Sandbox& sb, bool agent, const std::string& region, const std::vector<std::string>& program,
                   const std::string& out) {
  std::vector<std::string> args{"run", "--backend", "emul", "--no-cache-sim", "-q", "-o", out, "--region", region};
  if (agent) args.insert(args.begin() + 1, "--no-ptrace");
  args.push_back("--");
  args.push_back(fixture(program.at(0)));
  args.insert(args.end(), program.begin() + 1, program.end());
  return sb.roofprof(args);
}

double num_at(const json& reg, const char* a, const char* b, const char* c) { return reg[a][b][c].get<double>(); }

// pre_dgemm_ (-O0, libpre_a.so) with m=3, n=2, k=4: 2mnk multiply-adds and, per element of C,
// alpha*s, beta*c and their sum: 2*24 + 3*6 = 66 flops per call, all scalar double.
TEST(PreloadEmul, HookedLibraryRegionHasExactWork) {
  Sandbox sb;
  auto r = emul_run(sb, true, "pre_dgemm_", {"pre_app", "dgemm", "3"}, "agent.json");
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "agent.json");
  json reg = region(doc, "pre_dgemm_");
  ASSERT_FALSE(reg.is_null()) << r.diag();
  EXPECT_EQ(calls(reg), 3) << reg.dump();
  EXPECT_EQ(reg["sources"]["flops"], "emul") << reg.dump();
  EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 3.0 * 66) << reg.dump();
  EXPECT_DOUBLE_EQ(reg["flops_by_class"]["dp_scalar"].get<double>(), 3.0 * 66) << reg.dump();
  EXPECT_TRUE(plain_warnings(doc).empty()) << doc["warnings"].dump(1);
}

// Same region, same program: agent-marked (--no-ptrace) and probe-marked (breakpoints) emulated
// runs give identical instructions, flops and L1 bytes. Any instruction of the agent's
// trampolines, C code or register saves counted in the region would break the equality.
TEST(PreloadEmul, AgentMarkedCountsEqualProbeMarkedCounts) {
  Sandbox sb;
  auto a = emul_run(sb, true, "pre_b_work", {"pre_app", "lib2lib", "50"}, "agent.json");
  ASSERT_EQ(a.exit_code(), 0) << a.diag();
  auto p = emul_run(sb, false, "pre_b_work", {"pre_app", "lib2lib", "50"}, "probes.json");
  ASSERT_EQ(p.exit_code(), 0) << p.diag();
  json ra = region(load_result(a, "agent.json"), "pre_b_work");
  json rp = region(load_result(p, "probes.json"), "pre_b_work");
  ASSERT_FALSE(ra.is_null()) << a.diag();
  ASSERT_FALSE(rp.is_null()) << p.diag();
  EXPECT_EQ(calls(ra), 50);
  EXPECT_EQ(calls(rp), 50);
  // pre_b_work(x, 10) at -O0: a multiply and an add per iteration.
  EXPECT_DOUBLE_EQ(ra["flops"].get<double>(), 50.0 * 20) << ra.dump();
  EXPECT_DOUBLE_EQ(ra["flops"].get<double>(), rp["flops"].get<double>());
  EXPECT_DOUBLE_EQ(ra["instructions"].get<double>(), rp["instructions"].get<double>()) << ra.dump() << rp.dump();
  EXPECT_DOUBLE_EQ(num_at(ra, "bytes", "L1", "read"), num_at(rp, "bytes", "L1", "read")) << ra.dump() << rp.dump();
  EXPECT_DOUBLE_EQ(num_at(ra, "bytes", "L1", "write"), num_at(rp, "bytes", "L1", "write")) << ra.dump() << rp.dump();
  EXPECT_GT(num_at(ra, "bytes", "L1", "read"), 0.0);
}

// Threads: each thread's hooked calls are its own instances; with --scope thread each counts
// exactly its own call (pre_work(x, 50) at -O0: 50 adds).
TEST(PreloadEmul, ThreadScopeCountsEachThreadsCalls) {
  Sandbox sb;
  std::vector<std::string> args{"run", "--no-ptrace", "--backend", "emul", "--no-cache-sim", "-q", "--scope", "thread",
                                "--region", "pre_work", "--", fixture("pre_app"), "threads", "3", "20"};
  auto r = sb.roofprof(args);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "pre_work");
  ASSERT_FALSE(reg.is_null()) << r.diag();
  EXPECT_EQ(calls(reg), 60) << reg.dump();
  EXPECT_EQ(threads(reg), 3) << reg.dump();
  EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 60.0 * 50) << reg.dump();
}

// --cache-state cold: the tool empties its simulated caches at every outermost agent-marked
// entry, as at an outermost entry probe. Each cold call then reads x's line and the lines of
// its stack frame from DRAM and writes the frame's lines back; how many stack lines a frame
// touches depends on where the stack falls, which the environment shifts (the agent's
// variables), so the two runs may differ by a line per call. Warm: x's line once.
TEST(PreloadEmul, ColdCachesAtEachOutermostAgentEntry) {
  Sandbox sb;
  auto run = [&](bool agent, const char* state, const std::string& out) {
    std::vector<std::string> args{"run", "--backend", "emul", "-q", "--cache-state", state, "-o", out,
                                  "--region", "pre_work", "--", fixture("pre_app"), "calls", "10"};
    if (agent) args.insert(args.begin() + 1, "--no-ptrace");
    auto r = sb.roofprof(args);
    EXPECT_EQ(r.exit_code(), 0) << r.diag();
    return region(load_result(r, out), "pre_work");
  };
  json cold = run(true, "cold", "cold.json"), warm = run(true, "warm", "warm.json");
  json probes = run(false, "cold", "probes.json");
  ASSERT_FALSE(cold.is_null());
  ASSERT_FALSE(probes.is_null());
  const double line = 64, calls = 10;
  double read = num_at(cold, "bytes", "DRAM", "read"), written = num_at(cold, "bytes", "DRAM", "write");
  EXPECT_GE(read, calls * 2 * line) << cold.dump();
  EXPECT_LE(read, calls * 5 * line) << cold.dump();
  EXPECT_GE(written, calls * line) << cold.dump();
  EXPECT_LE(std::abs(read - num_at(probes, "bytes", "DRAM", "read")), calls * line) << cold.dump() << probes.dump();
  EXPECT_LE(std::abs(written - num_at(probes, "bytes", "DRAM", "write")), calls * line) << cold.dump() << probes.dump();
  EXPECT_LE(num_at(warm, "bytes", "DRAM", "read"), 2 * line) << warm.dump();
}

// A region left by longjmp closes as it does in the native agent run (the agent's interposed
// longjmp reports it), with the work done up to the jump.
TEST(PreloadEmul, LongjmpClosesTheRegionAsNatively) {
  Sandbox sb;
  auto r = emul_run(sb, true, "pre_jumper", {"pre_app", "longjmp"}, "agent.json");
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r, "agent.json"), "pre_jumper");
  ASSERT_FALSE(reg.is_null()) << r.diag();
  EXPECT_EQ(calls(reg), 2) << reg.dump();
  EXPECT_EQ(closed_by(reg, "longjmp"), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 1) << reg.dump();
}

// C++ exceptions through hooked regions close as in the native agent run
// (preload_semantics_test.cpp): the agent's unwinder interposition reports them.
TEST(PreloadEmul, ExceptionsCloseAsNatively) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--no-ptrace", "--backend", "emul", "--no-cache-sim", "-q", "--region",
                        "pre_cxx::thrower", "--region", "pre_cxx::rethrows", "--", fixture("pre_cxx_app")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  json t = region(doc, "pre_cxx::thrower");
  EXPECT_EQ(calls(t), 4) << t.dump();
  EXPECT_EQ(closed_by(t, "exception"), 3) << t.dump();
  EXPECT_EQ(closed_by(t, "return"), 1) << t.dump();
  json re = region(doc, "pre_cxx::rethrows");
  EXPECT_EQ(calls(re), 1) << re.dump();
  EXPECT_EQ(closed_by(re, "exception"), 1) << re.dump();
  EXPECT_TRUE(plain_warnings(doc).empty()) << doc["warnings"].dump(1);
}

// A fork child is measured only with --follow-fork, as in the native agent run (5 calls of
// pre_work(x, 100) in each process).
TEST(PreloadEmul, ForkChildFollowsTheNativeRule) {
  Sandbox sb;
  for (bool follow : {false, true}) {
    std::vector<std::string> args{"run", "--no-ptrace", "--backend", "emul", "--no-cache-sim", "-q", "--region",
                                  "pre_work", "--", fixture("pre_app"), "fork", "5"};
    if (follow) args.insert(args.begin() + 2, "--follow-fork");
    auto r = sb.roofprof(args);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json doc = load_result(r);
    json reg = region(doc, "pre_work");
    EXPECT_EQ(calls(reg), follow ? 10 : 5) << reg.dump();
    EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), (follow ? 10 : 5) * 100.0) << reg.dump();
    EXPECT_TRUE(plain_warnings(doc).empty()) << doc["warnings"].dump(1);
  }
}

}  // namespace
}  // namespace it
