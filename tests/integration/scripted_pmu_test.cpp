// `roofprof run --backend perf` end to end on a scripted PMU (ROOFPROF_SCRIPTED_PMU, honoured by
// builds with ROOFPROF_TEST_SEAMS): the real binary, tracer and counting path, with the kernel's
// perf_event_open/read answered from a script (counters/scripted_pmu.hpp). Every read of a group
// is one scripted step; the region `dgemm` (called once) spans exactly one step of the thread's
// groups, so its counts are the script's second-step values.
#include <algorithm>

#include "harness.hpp"

namespace it {
namespace {

// Runs `roofprof run --backend perf --region dgemm` on the script; LIBPFM_FORCE_PMU = force_pmu,
// or, when empty, "perf" (libpfm4's generic PMU only: no core PMU, whatever the host's CPU, so
// that selection goes by the script's `cpu` line as on a part libpfm4 has no table for).
RunResult run_scripted(Sandbox& sb, const std::string& script, const std::string& force_pmu) {
  write_text(sb.path("pmu.script"), script);
  RunOptions ro;
  ro.env["ROOFPROF_SCRIPTED_PMU"] = sb.path("pmu.script").string();
  ro.env["LIBPFM_FORCE_PMU"] = force_pmu.empty() ? "perf" : force_pmu;
  return sb.roofprof({"run", "--backend", "perf", "--region", "dgemm", "--", fixture("emul_kernels_O2"), "counts"}, ro);
}

bool seams_off(const RunResult& r) { return r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos; }

// The dgemm region of a successful scripted run; null when the build has no test seams.
json dgemm_of(const std::string& script, const std::string& force_pmu) {
  Sandbox sb;
  const RunResult r = run_scripted(sb, script, force_pmu);
  if (seams_off(r)) return nullptr;
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  if (r.exit_code() != 0) return json::object();
  const json d = region(load_result(r), "dgemm");
  EXPECT_EQ(calls(d), 1);
  return d;
}

#define SKIP_WITHOUT_SEAMS(d) \
  if ((d).is_null()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS"

TEST(ScriptedPmu, MultiplexedRegionIsScaledLikePerfAndLabelled) {
  // Skylake-SP: the first group (fixed + 4 double-precision events) runs all of step 0 and half
  // of step 1: it sees 500 of the region's 1000 scalar-double instructions in 500 of 1000 ns.
  const json d = dgemm_of("cpu GenuineIntel 6 0x55\nschedule raw 0x1c7 1 0.5\ncount raw 0x1c7 0 1000\n"
                          "count raw 0x1ff1 0 3\ncount raw 0x2f2 0 2\n", "skx");
  SKIP_WITHOUT_SEAMS(d);
  EXPECT_DOUBLE_EQ(d["flops"].get<double>(), 1000) << d.dump();
  EXPECT_DOUBLE_EQ(d["flops_by_class"]["dp_scalar"].get<double>(), 1000);
  EXPECT_NE(d["sources"]["flops"].get<std::string>().find("scaled"), std::string::npos) << d.dump();
  // Intel's per-core lines are L2 <-> L3 traffic, stored at that level, never as DRAM.
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["write"].get<double>(), 128);
  EXPECT_TRUE(d["bytes"]["DRAM"]["read"].is_null()) << d.dump();
}

TEST(ScriptedPmu, GroupThatNeverRunsGivesNullWSaidNotCounted) {
  const json d = dgemm_of("cpu GenuineIntel 6 0x55\nschedule raw 0x1c7 0\ncount raw 0x1c7 0 1000\n", "skx");
  SKIP_WITHOUT_SEAMS(d);
  EXPECT_TRUE(d["flops"].is_null()) << d.dump();
  EXPECT_NE(d["sources"]["flops"].get<std::string>().find("not counted"), std::string::npos) << d.dump();
}

TEST(ScriptedPmu, HybridByCpuidCountsOnBothCoreTypes) {
  // Meteor Lake (libpfm4 4.13 has no table): P-core FP_ARITH on cpu_core, E-core FP_FLOPS_RETIRED
  // on cpu_atom, both sysfs PMUs given by the script.
  const json d = dgemm_of("cpu GenuineIntel 6 0xaa\npmu cpu_core 4\npmu cpu_atom 10\n"
                          "count 4 0x10c7 0 100\ncount 10 0x1c8 0 9\n", "");
  SKIP_WITHOUT_SEAMS(d);
  EXPECT_DOUBLE_EQ(d["flops"].get<double>(), 4 * 100 + 9) << d.dump();
  EXPECT_DOUBLE_EQ(d["flops_by_class"]["dp_flops_atom"].get<double>(), 9);
}

TEST(ScriptedPmu, ClientHaswellRunsWithoutItsServerUncoreTables) {
  // E1: hsw.txt's uncore lines name hswep_unc_* PMUs libpfm4 activates only on servers; the run
  // encodes only what it opens (per-thread lines), so client Haswell runs.
  const json d = dgemm_of("cpu GenuineIntel 6 0x3c\ncount raw 0x7f1 0 3\n", "hsw");
  SKIP_WITHOUT_SEAMS(d);
  EXPECT_TRUE(d["flops"].is_null()) << "Haswell has no FP counters";
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
}

TEST(ScriptedPmu, BusyCounterIsOneLineExitTwo) {
  Sandbox sb;
  auto r = run_scripted(sb, "cpu GenuineIntel 6 0x55\nfail raw 0x1c7 EBUSY\n", "skx");
  if (seams_off(r)) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_NE(r.err.find("perf_event_open(dp_scalar"), std::string::npos) << r.diag();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();
}

TEST(Events, EveryShippedModelPrintsItsEncodings) {
  Sandbox sb;
  auto list = sb.roofprof({"events", "--list"});
  ASSERT_EQ(list.exit_code(), 0) << list.diag();
  std::istringstream in(list.out);
  std::vector<std::string> models;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  ", 0) == 0) models.push_back(line.substr(2, line.find(' ', 2) - 2));
  for (const char* m : {"snb", "skx", "spr", "emr", "gnr", "srf", "adl", "mtl", "zen4", "zen5"})
    EXPECT_NE(std::find(models.begin(), models.end(), m), models.end()) << m << " not listed\n" << list.out;
  for (const std::string& m : models) {
    auto r = sb.roofprof({"events", "--pmu", m});
    EXPECT_EQ(r.exit_code(), 0) << m << "\n" << r.diag();
    EXPECT_NE(r.out.find("Event set " + m + ":"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace it
