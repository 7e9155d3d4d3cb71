// `roofprof run --backend perf` end to end on a scripted PMU (ROOFPROF_SCRIPTED_PMU, honoured by
// builds with ROOFPROF_TEST_SEAMS): the real binary, tracer and counting path, with the kernel's
// perf_event_open/read answered from a script (counters/scripted_pmu.hpp). Every read of a group
// is one scripted step; the region `dgemm` (called once) spans exactly one step of the thread's
// groups, so its counts are the script's second-step values.
#include "harness.hpp"

namespace it {
namespace {

struct Scripted {
  Sandbox sb;
  RunResult run(const std::string& script, const std::string& force_pmu) {
    write_text(sb.path("pmu.script"), script);
    RunOptions ro;
    ro.env["ROOFPROF_SCRIPTED_PMU"] = sb.path("pmu.script").string();
    if (!force_pmu.empty()) ro.env["LIBPFM_FORCE_PMU"] = force_pmu;
    return sb.roofprof({"run", "--backend", "perf", "--region", "dgemm", "--", fixture("emul_kernels_O2"), "counts"},
                       ro);
  }
};

bool seams_off(const RunResult& r) { return r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos; }

TEST(ScriptedPmu, MultiplexedRegionIsScaledLikePerfAndLabelled) {
  Scripted s;
  // Skylake-SP: the first group (fixed + 4 double-precision events) runs all of step 0 and half
  // of step 1: it sees 500 of the region's 1000 scalar-double instructions in 500 of 1000 ns.
  auto r = s.run("cpu GenuineIntel 6 0x55\nschedule raw 0x1c7 1 0.5\ncount raw 0x1c7 0 1000\n"
                 "count raw 0x1ff1 0 3\ncount raw 0x2f2 0 2\n", "skx");
  if (seams_off(r)) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json res = load_result(r);
  const json d = region(res, "dgemm");
  ASSERT_EQ(calls(d), 1);
  EXPECT_DOUBLE_EQ(d["flops"].get<double>(), 1000) << d.dump();
  EXPECT_DOUBLE_EQ(d["flops_by_class"]["dp_scalar"].get<double>(), 1000);
  EXPECT_NE(d["sources"]["flops"].get<std::string>().find("scaled"), std::string::npos) << d.dump();
  // Intel's per-core lines are L2 <-> L3 traffic, stored at that level, never as DRAM.
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["write"].get<double>(), 128);
  EXPECT_TRUE(d["bytes"]["DRAM"]["read"].is_null()) << d.dump();
}

TEST(ScriptedPmu, GroupThatNeverRunsGivesNullWSaidNotCounted) {
  Scripted s;
  auto r = s.run("cpu GenuineIntel 6 0x55\nschedule raw 0x1c7 0\ncount raw 0x1c7 0 1000\n", "skx");
  if (seams_off(r)) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json d = region(load_result(r), "dgemm");
  EXPECT_TRUE(d["flops"].is_null()) << d.dump();
  EXPECT_NE(d["sources"]["flops"].get<std::string>().find("not counted"), std::string::npos) << d.dump();
}

TEST(ScriptedPmu, HybridByCpuidCountsOnBothCoreTypes) {
  // Meteor Lake (libpfm4 4.13 has no table): P-core FP_ARITH on cpu_core, E-core FP_FLOPS_RETIRED
  // on cpu_atom, both sysfs PMUs given by the script.
  Scripted s;
  auto r = s.run("cpu GenuineIntel 6 0xaa\npmu cpu_core 4\npmu cpu_atom 10\n"
                 "count 4 0x10c7 0 100\ncount 10 0x1c8 0 9\n", "");
  if (seams_off(r)) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json d = region(load_result(r), "dgemm");
  EXPECT_DOUBLE_EQ(d["flops"].get<double>(), 4 * 100 + 9) << d.dump();
  EXPECT_DOUBLE_EQ(d["flops_by_class"]["dp_flops_atom"].get<double>(), 9);
}

TEST(ScriptedPmu, ClientHaswellRunsWithoutItsServerUncoreTables) {
  // E1: hsw.txt's uncore lines name hswep_unc_* PMUs libpfm4 activates only on servers; the run
  // encodes only what it opens (per-thread lines), so client Haswell runs.
  Scripted s;
  auto r = s.run("cpu GenuineIntel 6 0x3c\ncount raw 0x7f1 0 3\n", "hsw");
  if (seams_off(r)) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json d = region(load_result(r), "dgemm");
  EXPECT_TRUE(d["flops"].is_null()) << "Haswell has no FP counters";
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
}

TEST(ScriptedPmu, BusyCounterIsOneLineExitTwo) {
  Scripted s;
  auto r = s.run("cpu GenuineIntel 6 0x55\nfail raw 0x1c7 EBUSY\n", "skx");
  if (seams_off(r)) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_NE(r.err.find("perf_event_open(dp_scalar"), std::string::npos) << r.diag();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();
}

}  // namespace
}  // namespace it
