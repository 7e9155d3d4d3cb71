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
// `roofprof ARGS` on the script, as run_scripted describes.
RunResult roofprof_scripted(Sandbox& sb, const std::string& script, const std::string& force_pmu,
                            const std::vector<std::string>& args) {
  write_text(sb.path("pmu.script"), script);
  RunOptions ro;
  ro.env["ROOFPROF_SCRIPTED_PMU"] = sb.path("pmu.script").string();
  ro.env["LIBPFM_FORCE_PMU"] = force_pmu.empty() ? "perf" : force_pmu;
  return sb.roofprof(args, ro);
}

RunResult run_scripted(Sandbox& sb, const std::string& script, const std::string& force_pmu,
                       const std::vector<std::string>& options = {}) {
  std::vector<std::string> args{"run", "--backend", "perf", "--region", "dgemm"};
  args.insert(args.end(), options.begin(), options.end());
  for (const std::string& a : {std::string("--"), fixture("emul_kernels_O2"), std::string("counts")}) args.push_back(a);
  return roofprof_scripted(sb, script, force_pmu, args);
}

bool seams_off(const RunResult& r) { return r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos; }

// The result of a successful scripted run; null when the build has no test seams.
json result_of(const std::string& script, const std::string& force_pmu, const std::vector<std::string>& options = {}) {
  Sandbox sb;
  const RunResult r = run_scripted(sb, script, force_pmu, options);
  if (seams_off(r)) return nullptr;
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  if (r.exit_code() != 0) return json::object();
  const json res = load_result(r);
  EXPECT_EQ(calls(region(res, "dgemm")), 1);
  return res;
}

// The dgemm region of a successful scripted run; null when the build has no test seams.
json dgemm_of(const std::string& script, const std::string& force_pmu) {
  const json res = result_of(script, force_pmu);
  return res.is_null() || res.empty() ? res : region(res, "dgemm");
}

#define SKIP_WITHOUT_SEAMS(d) \
  if ((d).is_null()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS"

TEST(ScriptedPmu, MultiplexedRegionIsScaledLikePerfAndLabelled) {
  // Skylake-SP (4 counters: W's 5 events cannot be pinned whole): the first group (fixed + 4 of
  // W's events) runs all of step 0 and half of step 1: it sees 500 of the region's 1000 scalar
  // instructions (umask 0x03: single and double) in 500 of 1000 ns.
  const json d = dgemm_of("cpu GenuineIntel 6 0x55\nschedule raw 0x3c7 1 0.5\ncount raw 0x3c7 0 1000\n"
                          "count raw 0x1ff1 0 3\ncount raw 0x2f2 0 2\n", "skx");
  SKIP_WITHOUT_SEAMS(d);
  EXPECT_DOUBLE_EQ(d["flops"].get<double>(), 1000) << d.dump();
  EXPECT_DOUBLE_EQ(d["flops_by_class"]["fp_scalar"].get<double>(), 1000);
  EXPECT_NE(d["sources"]["flops"].get<std::string>().find("scaled"), std::string::npos) << d.dump();
  // Intel's per-core lines are L2 <-> L3 traffic, stored at that level, never as DRAM.
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["write"].get<double>(), 128);
  EXPECT_TRUE(d["bytes"]["DRAM"]["read"].is_null()) << d.dump();
}

TEST(ScriptedPmu, GroupThatNeverRunsGivesNullWSaidNotCounted) {
  const json d = dgemm_of("cpu GenuineIntel 6 0x55\nschedule raw 0x3c7 0\ncount raw 0x3c7 0 1000\n", "skx");
  SKIP_WITHOUT_SEAMS(d);
  EXPECT_TRUE(d["flops"].is_null()) << d.dump();
  EXPECT_NE(d["sources"]["flops"].get<std::string>().find("not counted"), std::string::npos) << d.dump();
}

TEST(ScriptedPmu, HybridByCpuidCountsOnBothCoreTypes) {
  // Meteor Lake (libpfm4 4.13 has no table): P-core FP_ARITH on cpu_core, E-core FP_FLOPS_RETIRED
  // on cpu_atom, both sysfs PMUs given by the script. One thread cannot run on both at once: it
  // runs 3 of the step's 4 ticks on a P-core (100 fp_x4 there) and one on an E-core (9 flops).
  const json d = dgemm_of("cpu GenuineIntel 6 0xaa\npmu cpu_core 4\npmu cpu_atom 10\nresidency 4 0.75\n"
                          "count 4 0x18c7 0 100\ncount 10 0x1c8 0 9\n", "");
  SKIP_WITHOUT_SEAMS(d);
  // W's events fit on each core type beside the NMI watchdog: the plan pins them.
  Sandbox sb;
  const RunResult events = sb.roofprof({"events", "--pmu", "mtl"});
  EXPECT_NE(events.out.find("W with the NMI watchdog on: exact"), std::string::npos) << events.out;
  // Pinned, each core type's group counts all the work done on it: the sum is exact.
  EXPECT_DOUBLE_EQ(d["flops"].get<double>(), 4 * 100 + 9) << d.dump();
  EXPECT_DOUBLE_EQ(d["flops_by_class"]["dp_flops_atom"].get<double>(), 9);
  EXPECT_EQ(d["sources"]["flops"], "perf");
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
  auto r = run_scripted(sb, "cpu GenuineIntel 6 0x55\nfail raw 0x3c7 EBUSY\n", "skx");
  if (seams_off(r)) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_NE(r.err.find("perf_event_open(fp_scalar"), std::string::npos) << r.diag();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();
}

// Ice Lake-SP with two memory controllers, each on two sockets (cpumask 0,56): four boxes'
// counts, summed. CAS reads 100 and 30 per box, writes 40 and 2; L2 lines in 3 per core.
const char* kIcxImc =
    "cpu GenuineIntel 6 0x6a\n"
    "pmu uncore_imc_0 17 0,56\npmu uncore_imc_1 18 0,56\n"
    "count 17 0xf04 0 100\ncount 18 0xf04 0 30\ncount 17 0x3004 0 40\ncount 18 0x3004 0 2\n"
    "count raw 0x1ff1 0 3\n";
const char* kIcxNoImc = "cpu GenuineIntel 6 0x6a\ncount raw 0x1ff1 0 3\n";
const char* kPerCoreNote = "Q is the per-core approximation (level L3), not memory-controller DRAM counts: ";

// The run's warnings that say why Q is not the memory controllers'.
std::vector<std::string> memory_notes(const json& res) {
  std::vector<std::string> out;
  for (const auto& w : res["warnings"])
    if (w.get<std::string>().find("memory-controller") != std::string::npos) out.push_back(w.get<std::string>());
  return out;
}

TEST(ScriptedPmu, MemoryControllersGiveDramBytesLabelledSystemWide) {
  const json res = result_of(kIcxImc, "icx");
  if (res.is_null()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  const json d = region(res, "dgemm");
  EXPECT_DOUBLE_EQ(d["bytes"]["DRAM"]["read"].get<double>(), 64.0 * (100 + 30) * 2) << d.dump();
  EXPECT_DOUBLE_EQ(d["bytes"]["DRAM"]["write"].get<double>(), 64.0 * (40 + 2) * 2) << d.dump();
  EXPECT_EQ(d["sources"]["bytes"], "DRAM: perf (memory controller, system-wide: includes other processes' traffic)");
  EXPECT_DOUBLE_EQ(counter(d, "cas_rd"), 260);
  EXPECT_DOUBLE_EQ(counter(d, "cas_wr"), 84);
  EXPECT_TRUE(memory_notes(res).empty()) << res["warnings"].dump();
}

TEST(ScriptedPmu, WithoutMemoryControllerPmusQIsThePerCoreApproximationWithANote) {
  const json res = result_of(kIcxNoImc, "icx");
  if (res.is_null()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  const json d = region(res, "dgemm");
  EXPECT_TRUE(d["bytes"]["DRAM"]["read"].is_null()) << d.dump();
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
  EXPECT_EQ(d["sources"]["bytes"], "L3: perf (per-core approximation)");
  EXPECT_EQ(memory_notes(res), std::vector<std::string>{std::string(kPerCoreNote) +
                                                        "the kernel exposes none of the set's memory-controller "
                                                        "PMUs (uncore_imc_0, ...)"});
}

TEST(ScriptedPmu, RefusedMemoryControllersFallBackWithTheKernelsReason) {
  const json res = result_of(std::string(kIcxImc) + "fail 17 * EACCES\n", "icx");
  if (res.is_null()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  const json d = region(res, "dgemm");
  EXPECT_TRUE(d["bytes"]["DRAM"]["read"].is_null()) << d.dump();
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
  const auto notes = memory_notes(res);
  ASSERT_EQ(notes.size(), 1u) << res["warnings"].dump();
  EXPECT_EQ(notes[0].rfind(std::string(kPerCoreNote) + "the memory-controller events did not open: "
                           "perf_event_open(cas_rd on uncore_imc_0, cpu 0): ", 0), 0u) << notes[0];
}

TEST(ScriptedPmu, ThreadScopeKeepsThePerCoreApproximationWithANote) {
  const json res = result_of(kIcxImc, "icx", {"--scope", "thread"});
  if (res.is_null()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  const json d = region(res, "dgemm");
  EXPECT_TRUE(d["bytes"]["DRAM"]["read"].is_null()) << d.dump();
  EXPECT_DOUBLE_EQ(d["bytes"]["L3"]["read"].get<double>(), 192) << d.dump();
  EXPECT_EQ(memory_notes(res), std::vector<std::string>{std::string(kPerCoreNote) +
                                                        "--scope thread: memory-controller counts are system-wide, "
                                                        "not one thread's"});
}

// `roofprof doctor`'s "memory traffic (Q)" line on the script: what a run gets, by the run's own decision.
std::string doctor_q_line(const std::string& script) {
  Sandbox sb;
  const RunResult r = roofprof_scripted(sb, script, "icx", {"doctor"});
  if (seams_off(r)) return "";
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  for (const std::string& line : lines(r.out))
    if (line.find("memory traffic (Q)") != std::string::npos) return line;
  ADD_FAILURE() << "no memory traffic line\n" << r.out;
  return "?";
}

TEST(ScriptedPmu, DoctorSaysWhichQARunGets) {
  const std::string with = doctor_q_line(kIcxImc);
  if (with.empty()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  EXPECT_EQ(with.rfind("  ok   memory traffic (Q)   perf runs count DRAM bytes at the memory controllers "
                       "(uncore_imc_0, uncore_imc_1), system-wide per socket: other processes' traffic is included; "
                       "--scope thread gets the per-core approximation (level L3)", 0), 0u) << with;
  EXPECT_EQ(doctor_q_line(kIcxNoImc),
            "  NO   memory traffic (Q)   perf runs get the per-core approximation (level L3): the kernel exposes none "
            "of the set's memory-controller PMUs (uncore_imc_0, ...)");
  const std::string refused = doctor_q_line(std::string(kIcxImc) + "fail 17 * EACCES\n");
  EXPECT_EQ(refused.rfind("  NO   memory traffic (Q)   perf runs get the per-core approximation (level L3): the "
                          "memory-controller events did not open: perf_event_open(cas_rd on uncore_imc_0, cpu 0): ", 0),
            0u) << refused;
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
