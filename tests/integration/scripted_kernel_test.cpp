// `roofprof run --backend perf` end to end under every shipped event set, on the scripted PMU
// modelling the kernel (counters/scripted_pmu.hpp): each model's real counter count, Intel's
// fixed counters, the NMI watchdog on (most distributions' default), groups rotated at the tick,
// pinned groups, AMD's paired flops counters, hybrid core types. The region `dgemm` spans one
// step of its thread's groups (4 ticks); each case's W events occur only in that step, at an even
// rate (a multiple of 4, a whole number each tick), so the true W is known and perf's scaling of
// a rotated group recovers it on one core type. Whether the run can count W whole is the plan's
// word, asked of `roofprof events --pmu M` ("W with the NMI watchdog on: exact|estimate"), and
// each machine says which it must be: the plan pins W's events in one group where they fit beside
// the watchdog (every set here but the 4-counter Intel parts). Exact means the region's W is
// exact here and labelled "perf"; otherwise W is an estimate labelled with the plan's reason, or
// null and "not counted" with it.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "harness.hpp"

namespace it {
namespace {

struct Machine {
  std::string model;   // roofprof's set, selected by the script's CPUID
  std::string script;  // cpu, counters, fixed counters, PMUs, counts in step 1
  double w;            // the region's true W (on the core types the set counts), from the vendors' tables
  bool exact = false;  // the plan pins W's events whole beside the watchdog (group_plan.hpp)
  bool hybrid = false;
  std::string lower_bound = "";  // the share of time on a core type the set has no FP events for
};

// Intel: FP_ARITH_INST_RETIRED 0xC7, umasks merged by flop weight (0x03 scalar x1, 0x04 128-bit
// double x2, 0x18 128-bit single + 256-bit double x4, 0x20 256-bit single x8 without AVX-512,
// 0x60 256-bit single + 512-bit double x8, 0x80 512-bit single x16); fixed counters for
// instructions (0xc0), cycles (0x3c) and reference cycles (0x0300); 4 general counters per
// hardware thread with Hyper-Threading before Ice Lake (3 beside the watchdog: W's 4-6 events do
// not fit, an estimate), 8 from Ice Lake on, 6 on Gracemont E-cores, 8 on Crestmont and Skymont,
// 10 on Lion Cove. AMD: 6 counters; RETIRED_SSE_AVX_FLOPS (0x03) takes a pair.
const std::string kIntelFixed = "fixed raw 0xc0\nfixed raw 0x3c\nfixed raw 0x300\n";
std::string hybrid_fixed(int type) {
  return fmt::format("fixed {0} 0xc0\nfixed {0} 0x3c\nfixed {0} 0x300\n", type);
}
// P-cores (type 4) and E-cores (type 10) with `p` and `e` general counters: the thread runs 3 of
// the step's 4 ticks on a P-core.
std::string hybrid(const std::string& cpu, int p, int e) {
  return fmt::format("cpu GenuineIntel 6 {}\npmu cpu_core 4\npmu cpu_atom 10\ncounters {} 4\ncounters {} 10\n", cpu, p,
                     e) +
         hybrid_fixed(4) + hybrid_fixed(10) + "residency 4 0.75\n";
}

const std::vector<Machine>& machines() {
  static const std::vector<Machine> m = {
      {"snb", "cpu GenuineIntel 6 0x2a\ncounters 4\n" + kIntelFixed + "count raw 0x8010 0 1000\n", 1000},
      {"hsw", "cpu GenuineIntel 6 0x3c\ncounters 4\n" + kIntelFixed, NAN},
      {"bdw", "cpu GenuineIntel 6 0x3d\ncounters 4\n" + kIntelFixed + "count raw 0x18c7 0 100\n", 400},
      {"skl", "cpu GenuineIntel 6 0x5e\ncounters 4\n" + kIntelFixed + "count raw 0x3c7 0 1000\n", 1000},
      {"skx", "cpu GenuineIntel 6 0x55\ncounters 4\n" + kIntelFixed + "count raw 0x80c7 0 100\n", 1600},
      {"icl", "cpu GenuineIntel 6 0x7e\ncounters 8\n" + kIntelFixed + "count raw 0x60c7 0 100\n", 800, true},
      {"icx", "cpu GenuineIntel 6 0x6a\ncounters 8\n" + kIntelFixed + "count raw 0x18c7 0 100\n", 400, true},
      {"spr", "cpu GenuineIntel 6 0x8f\ncounters 8\n" + kIntelFixed + "count raw 0x3c7 0 1000\n", 1000, true},
      {"emr", "cpu GenuineIntel 6 0xcf\ncounters 8\n" + kIntelFixed + "count raw 0x80c7 0 100\n", 1600, true},
      {"gnr", "cpu GenuineIntel 6 0xad\ncounters 8\n" + kIntelFixed + "count raw 0x60c7 0 100\n", 800, true},
      // Crestmont / Darkmont FP_FLOPS_RETIRED (0xC8) FP64 umask 0x1, FP32 0x2.
      {"srf", "cpu GenuineIntel 6 0xaf\ncounters 8\n" + kIntelFixed + "count raw 0x1c8 0 50\n", 50, true},
      {"cwf", "cpu GenuineIntel 6 0xdd\ncounters 8\n" + kIntelFixed + "count raw 0x2c8 0 60\n", 60, true},
      // Alder Lake-N: Gracemont has no FP events.
      {"adln", "cpu GenuineIntel 6 0xbe\ncounters 6\n" + kIntelFixed, NAN},
      // Hybrids (cpu_core type 4, cpu_atom type 10). Alder Lake: 3 of 4 ticks on P-cores, where
      // its 100 sp_256 occur; the E-core's FP work is not counted by the set: W is a lower bound.
      {"adl", "cpu GenuineIntel 6 0x97\npmu cpu_core 4\npmu cpu_atom 10\ncounters 8 4\ncounters 6 10\n" +
                  hybrid_fixed(4) + hybrid_fixed(10) + "residency 4 0.75\ncount 4 0x20c7 0 100\n",
       800, true, true, "lower bound: 25 % of the region's time ran on cpu_atom"},
      // Meteor Lake: 3 of 4 ticks on P-cores (100 fp_x4 there), one on an E-core (9 FP64 flops).
      {"mtl", hybrid("0xaa", 8, 8) + "count 4 0x18c7 0 100\ncount 10 0x1c8 0 9\n", 409, true, true},
      // Lunar Lake, Arrow Lake, Panther Lake: Lion Cove / Cougar Cove P-cores, Skymont / Darkmont
      // E-cores. Arrow Lake-H's low-power E-cores (cpu_lowpower) are not where this thread runs.
      {"lnl", hybrid("0xbd", 10, 8) + "count 4 0x4c7 0 100\ncount 10 0x2c8 0 9\n", 209, true, true},
      {"arl", hybrid("0xc6", 10, 8) + "count 4 0x3c7 0 300\ncount 10 0x1c8 0 9\n", 309, true, true},
      {"arlh", hybrid("0xc5", 10, 8) + "pmu cpu_lowpower 11\ncounters 8 11\n" + hybrid_fixed(11) +
                   "count 4 0x20c7 0 30\ncount 10 0x1c8 0 9\n",
       249, true, true},
      {"ptl", hybrid("0xcc", 10, 8) + "count 4 0x18c7 0 30\ncount 10 0x2c8 0 9\n", 129, true, true},
      // Zen 1 RETIRED_SSE_AVX_OPERATIONS (0x03) umask 0xf0 double; Zen 2+ RETIRED_SSE_AVX_FLOPS,
      // ANY = umask 0x0f, on Zen 4 0x1f (BFloat16 MACs too).
      {"zen1", "cpu AuthenticAMD 0x17 0x01\ncounters 6\ncount raw 0xf003 0 500\n", 500, true},
      {"zen2", "cpu AuthenticAMD 0x17 0x31\ncounters 6\ncount raw 0xf03 0 900\n", 900, true},
      {"zen3", "cpu AuthenticAMD 0x19 0x21\ncounters 6\ncount raw 0xf03 0 900\n", 900, true},
      {"zen4", "cpu AuthenticAMD 0x19 0x61\ncounters 6\ncount raw 0x1f03 0 900\n", 900, true},
      {"zen5", "cpu AuthenticAMD 0x1a 0x02\ncounters 6\ncount raw 0xf03 0 900\n", 900, true},
  };
  return m;
}

// The plan's word on W for `model`: "exact: ..." or "estimate: ..." ("" when the set has no W).
std::string plan_says(Sandbox& sb, const std::string& model) {
  const RunResult r = sb.roofprof({"events", "--pmu", model});
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  const std::string tag = "W with the NMI watchdog on: ";
  for (const std::string& line : lines(r.out))
    if (auto at = line.find(tag); at != std::string::npos) return line.substr(at + tag.size());
  return "";
}

TEST(ScriptedKernel, EveryShippedSetGivesExactWWhereItsPlanPinsWAndSaysWhyElsewhere) {
  Sandbox probe;
  const RunResult list = probe.roofprof({"events", "--list"});
  ASSERT_EQ(list.exit_code(), 0) << list.diag();
  size_t covered = 0;
  for (const Machine& m : machines()) {
    SCOPED_TRACE(m.model);
    EXPECT_NE(list.out.find("  " + m.model + " "), std::string::npos) << "no set " << m.model;
    Sandbox sb;
    write_text(sb.path("pmu.script"), m.script + "kernel nmi_watchdog 1\n");
    RunOptions ro;
    ro.env["ROOFPROF_SCRIPTED_PMU"] = sb.path("pmu.script").string();
    ro.env["LIBPFM_FORCE_PMU"] = "perf";  // no core PMU detected: selection by the script's CPUID
    const RunResult r = sb.roofprof({"run", "--backend", "perf", "--region", "dgemm", "--",
                                     fixture("emul_kernels_O2"), "counts"}, ro);
    if (r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos) GTEST_SKIP() << "no test seams";
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    const json res = load_result(r);
    const json d = region(res, "dgemm");
    ++covered;
    const std::string plan = plan_says(sb, m.model);
    if (std::isnan(m.w)) {  // no FP events on this part
      EXPECT_TRUE(d["flops"].is_null()) << d.dump();
      EXPECT_EQ(plan, "");
      continue;
    }
    const std::string source = d["sources"].value("flops", "");
    if (!m.lower_bound.empty()) EXPECT_NE(source.find(m.lower_bound), std::string::npos) << source;
    else EXPECT_EQ(source.find("lower bound"), std::string::npos) << source;
    EXPECT_EQ(plan.rfind(m.exact ? "exact: " : "estimate: ", 0), 0u) << plan;
    if (plan.rfind("exact: ", 0) == 0) {
      ASSERT_TRUE(d["flops"].is_number()) << d.dump();
      EXPECT_DOUBLE_EQ(d["flops"].get<double>(), m.w) << d.dump();
      EXPECT_EQ(source.rfind("perf", 0), 0u) << d.dump();
      EXPECT_EQ(source.find("estimate"), std::string::npos) << d.dump();
      EXPECT_EQ(source.find("not counted"), std::string::npos) << d.dump();
      continue;
    }
    ASSERT_EQ(plan.rfind("estimate: ", 0), 0u) << plan;
    const std::string why = plan.substr(10, plan.size() - 11);  // without the final '.'
    if (source != "perf") EXPECT_NE(source.find(why), std::string::npos) << source << "\nplan: " << plan;
    if (d["flops"].is_null()) {
      EXPECT_EQ(source.rfind("perf: not counted (", 0), 0u) << source;
    } else if (source != "perf") {
      // Scaled from the ticks W's groups ran. Even rates make perf's scaling right on one core
      // type; on a hybrid it takes the other core type's time for multiplexing and over-counts.
      EXPECT_EQ(source.rfind("perf (estimate: scaled", 0), 0u) << source;
      if (!m.hybrid) EXPECT_NEAR(d["flops"].get<double>(), m.w, 1e-9 * m.w) << d.dump();
      else EXPECT_GT(d["flops"].get<double>(), m.w) << d.dump();
    } else {
      // W's groups happened to hold counters for the whole region: raw counts, no scaling.
      EXPECT_DOUBLE_EQ(d["flops"].get<double>(), m.w) << d.dump();
    }
    if (m.hybrid && !d["flops"].is_null()) EXPECT_NE(source.find("estimate"), std::string::npos) << source;
  }
  EXPECT_EQ(covered, machines().size());
  // Every set listed has a machine here: a set added without one fails.
  for (const std::string& line : lines(list.out)) {
    if (line.rfind("  ", 0) != 0) continue;
    const std::string model = line.substr(2, line.find(' ', 2) - 2);
    EXPECT_TRUE(std::any_of(machines().begin(), machines().end(), [&](const Machine& m) { return m.model == model; }))
        << model << " has no machine in this test";
  }
}

}  // namespace
}  // namespace it
