// The counting path of `roofprof run` (probe_capabilities -> make_run_counting -> per-thread
// groups -> reads -> counter_delta -> derive), on a scripted PMU instead of the kernel, under
// each forced libpfm4 model and under the CPUID fallback. Scripted counts are keyed by the raw
// perf config a real PMU would see; the expected W comes from the vendors' event tables
// (umask -> class and lanes), written out here, not from the event files.
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <set>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/counts.hpp"
#include "counters/capabilities.hpp"
#include "counters/event_catalog.hpp"
#include "counters/run_backend.hpp"
#include "counters/scripted_pmu.hpp"
#include "pfm_child.hpp"

namespace roofprof::counters {
namespace {

// In a child: force `pfm` (when empty, libpfm4's generic "perf" PMU alone, so that no core PMU is
// detected whatever the host's CPU is and selection goes by the script's cpu line), install the script, build the run's counting, read the
// thread twice (one scripted step) and derive W and Q. Returns
// "<model> W=<w> <class>=<v>... <level>=<read>/<write>" plus " not_counted" and " multiplexed",
// and " [W pinned]" when the run's groups count W whole (w_placement).
std::string run_counting(const std::string& pfm, const std::string& script) {
  return testing::run_in_child([&] {
    ::setenv("LIBPFM_FORCE_PMU", pfm.empty() ? "perf" : pfm.c_str(), 1);
    ScriptedPmu pmu(script);
    replace_perf_system(&pmu);
    const Capabilities caps = probe_capabilities();
    if (!caps.selection.set) return "no set: " + caps.selection.how;
    RunCounting rc = make_run_counting(BackendKind::perf, caps, {}, true);
    ProcessCounters pc(*rc.backend);
    pc.add_thread(static_cast<pid_t>(::syscall(SYS_gettid)));
    const CounterValues begin = pc.read_process();
    const CounterValues end = pc.read_process();
    const CounterDelta d = counter_delta(begin, end);
    std::map<std::string, double> totals;
    for (size_t i = 0; i < rc.backend->events().size(); ++i) totals[rc.backend->events()[i].name] = d.values[i];
    const Derived w = derive(*caps.selection.set, totals);
    std::string out = caps.selection.set->model + " W=" + (w.flops ? fmt::format("{}", *w.flops) : "null");
    for (const auto& [cls, v] : w.flops_by_class)
      if (v != 0) out += fmt::format(" {}={}", cls, v);
    for (const auto& [level, t] : w.bytes)
      out += fmt::format(" {}{}={}/{}", level, t.approximate ? "~" : "",
                         t.read ? fmt::format("{}", *t.read) : "null",
                         t.write ? fmt::format("{}", *t.write) : "null");
    if (d.not_counted) out += " not_counted";
    if (d.multiplexed) out += " multiplexed";
    if (rc.w.exact) out += " [W pinned]";
    return out;
  });
}

// Counts in the second step only (the region), so that a delta of one step is what is checked.
std::string counts(const std::vector<std::pair<std::string, int>>& events) {
  std::string s;
  for (const auto& [key, n] : events) s += fmt::format("count {} 0 {}\n", key, n);
  return s;
}

struct Case {
  std::string pfm;      // forced libpfm4 PMU
  std::string cpu;      // the CPU for the CPUID fallback
  std::string script;   // extra script lines (pmus, counts)
  std::string expected;
  std::string expected_if_w_pinned = "";  // where it differs when the plan pins W's groups
};

// The case's expectation for what run_counting said (the plan decides whether W is pinned).
std::string expected_for(const Case& c, const std::string& out) {
  const std::string tag = " [W pinned]";
  const bool pinned = out.size() >= tag.size() && out.compare(out.size() - tag.size(), tag.size(), tag) == 0;
  if (!pinned) return c.expected;
  return (c.expected_if_w_pinned.empty() ? c.expected : c.expected_if_w_pinned) + tag;
}

const std::vector<Case>& cases() {
  // Intel FP_ARITH_INST_RETIRED (event 0xC7) umasks: 0x01 scalar double, 0x02 scalar single,
  // 0x04/0x08 128-bit double/single, 0x10/0x20 256-bit, 0x40/0x80 512-bit (Intel SDM vol. 3B,
  // chapter 19 event tables; perf pmu-events JSON). L2_LINES_IN.ALL is 0x1FF1 up to Ice Lake
  // (Sunny Cove), 0x1F25 from Golden Cove (Alder Lake, Sapphire Rapids) on.
  static const std::vector<Case> c = {
      {"snb", "GenuineIntel 6 0x2a",  // FP_COMP_OPS_EXE 0x10: 0x80 SSE scalar double; SIMD_FP_256 0x11: 0x02 packed double
       counts({{"raw 0x8010", 1000}, {"raw 0x211", 100}, {"raw 0x7f1", 3}}),
       "snb W=1400 dp_256=400 dp_scalar=1000 L3~=192/0"},
      {"hsw", "GenuineIntel 6 0x3c",  // no FP events; L2_LINES_IN.ALL 0x07F1
       counts({{"raw 0x7f1", 3}, {"raw 0x40f0", 2}}), "hsw W=null L3~=192/128"},
      // L2_TRANS.L2_WB (0xF0/0x40): L2 writebacks.
      {"bdw", "GenuineIntel 6 0x3d", counts({{"raw 0x1c7", 1000}, {"raw 0x10c7", 100}, {"raw 0x7f1", 3}}),
       "bdw W=1400 dp_256=400 dp_scalar=1000 L3~=192/0"},
      {"skl", "GenuineIntel 6 0x5e", counts({{"raw 0x1c7", 1000}, {"raw 0x20c7", 100}, {"raw 0x1ff1", 3}}),
       "skl W=1800 dp_scalar=1000 sp_256=800 L3~=192/0"},
      {"skx", "GenuineIntel 6 0x55", counts({{"raw 0x1c7", 1000}, {"raw 0x80c7", 10}, {"raw 0x1ff1", 3}}),
       "skx W=1160 dp_scalar=1000 sp_512=160 L3~=192/0"},
      {"icl", "GenuineIntel 6 0x7e", counts({{"raw 0x40c7", 10}, {"raw 0x1ff1", 3}}),
       "icl W=80 dp_512=80 L3~=192/0"},
      {"icx", "GenuineIntel 6 0x6a", counts({{"raw 0x8c7", 10}, {"raw 0x1ff1", 3}}),
       "icx W=40 sp_128=40 L3~=192/0"},
      // FP_ARITH_INST_RETIRED2 (0xCF): 0x01 scalar half, 0x04/0x08/0x10 128/256/512-bit half.
      {"spr", "GenuineIntel 6 0x8f", counts({{"raw 0x1c7", 1000}, {"raw 0x8cf", 2}, {"raw 0x1f25", 3}}),
       "spr W=1032 dp_scalar=1000 hp_256=32 L3~=192/0"},
      // AMD PMCx003 (Zen 1 RETIRED_SSE_AVX_OPERATIONS): umask bits 4-7 double, 0-3 single.
      {"amd64_fam17h_zen1", "AuthenticAMD 0x17 0x01", counts({{"raw 0xf003", 500}, {"raw 0x0f03", 7}}),
       "zen1 W=507 dp=500 sp=7"},
      // Zen 2-4 RETIRED_SSE_AVX_FLOPS counts flops (a MAC counts 2) in one event; ANY = umask 0x0f.
      // Fills from DRAM: Zen 2 PMCx043 umasks 0x08|0x40, Zen 3/4 PMCx044 umasks 0x08|0x40.
      {"amd64_fam17h_zen2", "AuthenticAMD 0x17 0x31", counts({{"raw 0xf03", 900}, {"raw 0x4843", 5}}),
       "zen2 W=900 sp_dp=900 DRAM~=320/null"},
      {"amd64_fam19h_zen3", "AuthenticAMD 0x19 0x21", counts({{"raw 0xf03", 900}, {"raw 0x4844", 5}}),
       "zen3 W=900 sp_dp=900 DRAM~=320/null"},
      {"amd64_fam19h_zen4", "AuthenticAMD 0x19 0x61", counts({{"raw 0xf03", 900}, {"raw 0x1003", 4}, {"raw 0x4844", 5}}),
       "zen4 W=904 bf16=4 sp_dp=900 DRAM~=320/null"},
      // Parts libpfm4 4.13 has no table for: CPUID fallback only (raw sets).
      {"", "GenuineIntel 6 0xcf", counts({{"raw 0x1c7", 1000}, {"raw 0x2cf", 3}, {"raw 0x1f25", 3}}),
       "emr W=1006 dp_scalar=1000 hp_complex=6 L3~=192/0"},
      {"", "GenuineIntel 6 0xad", counts({{"raw 0x40c7", 10}, {"raw 0x10cf", 1}, {"raw 0x1f25", 3}}),
       "gnr W=112 dp_512=80 hp_512=32 L3~=192/0"},
      // Crestmont FP_FLOPS_RETIRED (0xC8): FP64 umask 0x1, FP32 umask 0x2.
      {"", "GenuineIntel 6 0xaf", counts({{"raw 0x1c8", 50}, {"raw 0x2c8", 7}}), "srf W=57 dp_flops=50 sp_flops=7"},
      // Hybrids: events on the kernel's cpu_core (type 4 here) and cpu_atom (type 10) PMUs. Alder
      // Lake's thread stays on P-cores: the E-core group (cycles only) never runs. The Meteor Lake
      // thread runs 3 of 4 ticks on P-cores: 100 dp_256 there, 9 FP64 flops on the E-core. Pinned,
      // each core type's group counts all its work (409); flexible, perf's scaling takes the other
      // core type's time for multiplexing: x4/3 on P-cores, x4 on the E-core.
      {"", "GenuineIntel 6 0x97", "pmu cpu_core 4\npmu cpu_atom 10\n" + counts({{"4 0x20c7", 100}, {"4 0x1f25", 3}}),
       "adl W=800 sp_256=800 L3~=192/0 not_counted"},
      {"", "GenuineIntel 6 0xaa", "pmu cpu_core 4\npmu cpu_atom 10\nresidency 4 0.75\n" +
           counts({{"4 0x10c7", 100}, {"10 0x1c8", 9}, {"4 0x1f25", 3}}),
       "mtl W=569.3333333333334 dp_256=533.3333333333334 dp_flops_atom=36 L3~=256/0 multiplexed",
       "mtl W=409 dp_256=400 dp_flops_atom=9 L3~=192/0"},
      // Zen 5 (this VM's CPU): fp_ret_sse_avx_ops.all 0x03/0x0f, ls_any_fills_from_sys.dram_io_all 0x44/0x48.
      {"", "AuthenticAMD 0x1a 0x02", counts({{"raw 0xf03", 900}, {"raw 0x4844", 5}}), "zen5 W=900 sp_dp=900 DRAM~=320/null"},
  };
  return c;
}

TEST(RunPath, EveryForcedModelGivesTheWTheScriptedCountsImply) {
  for (const Case& c : cases())
    if (!c.pfm.empty()) {
      const std::string out = run_counting(c.pfm, "cpu " + c.cpu + "\n" + c.script);
      EXPECT_EQ(out, expected_for(c, out)) << c.pfm;
    }
}

// The same through /proc/cpuinfo's family and model, with libpfm4 detecting no core PMU (as on
// parts it does not know): sets qualified by an inactive PMU fall back to their raw configs.
TEST(RunPath, EveryModelByCpuidFallbackGivesTheSameW) {
  for (const Case& c : cases()) {
    const std::string out = run_counting("", "cpu " + c.cpu + "\n" + c.script);
    EXPECT_EQ(out, expected_for(c, out)) << c.cpu;
  }
}

// "Every event set shipped": a set added to counters/events/ without a case here fails.
TEST(RunPath, EveryShippedEventSetHasACase) {
  std::set<std::string> shipped, covered;
  for (const EventSet& s : event_catalog()) shipped.insert(s.model);
  for (const Case& c : cases()) covered.insert(c.expected.substr(0, c.expected.find(' ')));
  EXPECT_EQ(covered, shipped);
}

TEST(RunPath, MultiplexedGroupIsScaledFromItsDeltas) {
  // Group 1 (fixed + 4 double-precision events) holds counters the whole first step and half of
  // the region's step: it sees 500 of 1000 events in 500 of 1000 ns; perf's estimate is 1000.
  EXPECT_EQ(run_counting("skx", "cpu GenuineIntel 6 0x55\nschedule raw 0x1c7 1 0.5\n" +
                                    counts({{"raw 0x1c7", 1000}})),
            "skx W=1000 dp_scalar=1000 L3~=0/0 multiplexed");
}

TEST(RunPath, NeverScheduledGroupGivesNullW) {
  EXPECT_EQ(run_counting("skx", "cpu GenuineIntel 6 0x55\nschedule raw 0x1c7 0\n" +
                                    counts({{"raw 0x1c7", 1000}, {"raw 0x1ff1", 3}})),
            "skx W=null L3~=192/0 not_counted");
}

TEST(RunPath, GroupsLeaveTheNmiWatchdogsCounterFree) {
  // On Intel the watchdog takes the fixed cycles counter: cycles then needs one of the 4
  // general counters, and a group of cycles + 4 FP events never runs. Plans use 3 with it on.
  // The set's other events fill more groups than fit at once: the kernel rotates them, and the
  // region's W is perf's estimate from the ticks its group ran.
  const std::string machine = "cpu GenuineIntel 6 0x55\ncounters 4\nfixed raw 0xc0\nfixed raw 0x300\n" +
                              counts({{"raw 0x1c7", 1000}});
  EXPECT_EQ(run_counting("skx", machine + "kernel nmi_watchdog 1\n"), "skx W=1000 dp_scalar=1000 L3~=0/0 multiplexed");
  // Without the watchdog (the kernel's word for it) the plan uses all 4, as it should.
  EXPECT_EQ(run_counting("skx", machine + "fixed raw 0x3c\n"), "skx W=1000 dp_scalar=1000 L3~=0/0 multiplexed");
}

TEST(RunPath, MemoryControllersGiveDramBytesFromTheUncoreDeltas) {
  // Ice Lake-SP UNC_M_CAS_COUNT.RD 0x0f04 / .WR 0x3004 on two boxes, the first on two sockets:
  // reads 2 x 100 + 30, writes 2 x 4 lines. Exact DRAM bytes replace the L3 approximation.
  EXPECT_EQ(run_counting("icx", "cpu GenuineIntel 6 0x6a\npmu uncore_imc_0 17 0,56\npmu uncore_imc_1 18 1\n" +
                                    counts({{"17 0xf04", 100}, {"18 0xf04", 30}, {"17 0x3004", 4}, {"raw 0x1ff1", 3}})),
            "icx W=0 DRAM=14720/512");
}

TEST(RunPath, RefusedOpensSayWhy) {
  EXPECT_NE(run_counting("skx", "cpu GenuineIntel 6 0x55\nfail raw 0x1c7 EBUSY\n").find("exception: perf_event_open(dp_scalar"),
            std::string::npos);
  EXPECT_NE(run_counting("skx", "cpu GenuineIntel 6 0x55\nfail raw * EACCES\n").find("exception: perf_event_open("),
            std::string::npos);
}

TEST(RunPath, ProbeSeesTheScriptedKernel) {
  const std::string out = testing::run_in_child([] {
    ScriptedPmu pmu("fail hw 0 ENOENT\nkernel nmi_watchdog 1\nkernel perf_event_paranoid 2\n");
    replace_perf_system(&pmu);
    const Capabilities c = probe_capabilities();
    return fmt::format("hw={} errno={} sw={} nmi={} paranoid={}", c.hardware_counters, c.hardware_errno,
                       c.software_counters, c.nmi_watchdog, c.perf_event_paranoid.value_or(-9));
  });
  EXPECT_EQ(out, fmt::format("hw=false errno={} sw=true nmi=true paranoid=2", ENOENT));
}

}  // namespace
}  // namespace roofprof::counters

namespace roofprof::counters {
namespace {

TEST(RunEncoding, LineThatCannotBeEncodedIsDroppedWithANoteNotAnAbort) {
  // E1: an unencodable line (no table, no raw fallback) and a line on a PMU this kernel lacks.
  const EventSet set = parse_event_set(
      "model t\ntitle T\nvendor intel\nmatch pfm skx\ncounters 4\ncounters 4 @cpu_core\n"
      "event good FP_ARITH_INST_RETIRED:SCALAR_DOUBLE\nevent bad NO_SUCH_EVENT\n"
      "event hybrid raw:0x1c7 @cpu_core\nformula W = good + bad\n",
      "t.txt");
  const std::string out = testing::run_in_child([&] {
    ScriptedPmu pmu("");  // no sysfs PMUs
    replace_perf_system(&pmu);
    PfmLibrary pfm(true);
    const HardwareEvents hw = encode_run_events(set, "skx", pfm);
    std::string s;
    for (const auto& e : hw.events) s += e.line.id + fmt::format("={:#x} ", e.config);
    for (const auto& n : hw.notes) s += "| " + n.substr(0, n.find(':')) + " ";
    return s;
  });
  EXPECT_EQ(out, "good=0x1c7 | event bad not counted | event hybrid not counted ");
}

TEST(RunEncoding, WatchdogLeavesOneCounterPerPmu) {
  const EventSet& adl = *find_event_set("adl");
  const auto limits = usable_counters(adl, true);
  ASSERT_EQ(limits.size(), 2u);
  EXPECT_EQ(limits[0].count, 7);  // cpu_core: 8 - 1
  EXPECT_EQ(limits[1].count, 5);  // cpu_atom: 6 - 1
  EXPECT_EQ(usable_counters(adl, false)[0].count, 8);
}

}  // namespace
}  // namespace roofprof::counters
