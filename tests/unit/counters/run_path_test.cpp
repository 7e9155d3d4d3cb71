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
  std::string expected;  // " [W pinned]" where the plan pins W whole (it fits the set's counters)
};

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
      // Umasks merged by flop weight (Intel's FLOPc metric): 0x03 scalar single+double (x1), 0x04
      // 128-bit double (x2), 0x18 128-bit single + 256-bit double (x4), 0x20 256-bit single (x8,
      // no AVX-512) or 0x60 256-bit single + 512-bit double (x8), 0x80 512-bit single (x16).
      // 4 counters (Hyper-Threading on): W's four events fill them, pinned; the L2 lines get none.
      {"bdw", "GenuineIntel 6 0x3d", counts({{"raw 0x3c7", 1000}, {"raw 0x18c7", 100}, {"raw 0x7f1", 3}}),
       "bdw W=1400 fp_scalar=1000 fp_x4=400 [W pinned]"},
      {"skl", "GenuineIntel 6 0x5e", counts({{"raw 0x3c7", 1000}, {"raw 0x20c7", 100}, {"raw 0x1ff1", 3}}),
       "skl W=1800 fp_scalar=1000 sp_256=800 [W pinned]"},
      {"skx", "GenuineIntel 6 0x55", counts({{"raw 0x3c7", 1000}, {"raw 0x80c7", 10}, {"raw 0x1ff1", 3}}),
       "skx W=1160 fp_scalar=1000 sp_512=160 L3~=192/0"},
      {"icl", "GenuineIntel 6 0x7e", counts({{"raw 0x60c7", 10}, {"raw 0x1ff1", 3}}),
       "icl W=80 fp_x8=80 L3~=192/0 [W pinned]"},
      {"icx", "GenuineIntel 6 0x6a", counts({{"raw 0x18c7", 10}, {"raw 0x1ff1", 3}}),
       "icx W=40 fp_x4=40 L3~=192/0 [W pinned]"},
      {"spr", "GenuineIntel 6 0x8f", counts({{"raw 0x3c7", 1000}, {"raw 0x4c7", 2}, {"raw 0x1f25", 3}}),
       "spr W=1004 dp_128=4 fp_scalar=1000 L3~=192/0 [W pinned]"},
      // AMD PMCx003 (Zen 1 RETIRED_SSE_AVX_OPERATIONS): umask bits 4-7 double, 0-3 single.
      {"amd64_fam17h_zen1", "AuthenticAMD 0x17 0x01", counts({{"raw 0xf003", 500}, {"raw 0x0f03", 7}}),
       "zen1 W=507 dp=500 sp=7 [W pinned]"},
      // Zen 2-4 RETIRED_SSE_AVX_FLOPS counts flops (a MAC counts 2) in one event; ANY = umask 0x0f,
      // on Zen 4 0x1f with BFloat16 MACs (0x10).
      // Fills from DRAM: Zen 2 PMCx043 umasks 0x08|0x40, Zen 3/4 PMCx044 umasks 0x08|0x40.
      {"amd64_fam17h_zen2", "AuthenticAMD 0x17 0x31", counts({{"raw 0xf03", 900}, {"raw 0x4843", 5}}),
       "zen2 W=900 sp_dp=900 DRAM~=320/null [W pinned]"},
      {"amd64_fam19h_zen3", "AuthenticAMD 0x19 0x21", counts({{"raw 0xf03", 900}, {"raw 0x4844", 5}}),
       "zen3 W=900 sp_dp=900 DRAM~=320/null [W pinned]"},
      {"amd64_fam19h_zen4", "AuthenticAMD 0x19 0x61", counts({{"raw 0x1f03", 904}, {"raw 0x4844", 5}}),
       "zen4 W=904 sp_dp=904 DRAM~=320/null [W pinned]"},
      // Parts libpfm4 4.13 has no table for: CPUID fallback only (raw sets).
      {"", "GenuineIntel 6 0xcf", counts({{"raw 0x3c7", 1000}, {"raw 0x80c7", 1}, {"raw 0x1f25", 3}}),
       "emr W=1016 fp_scalar=1000 sp_512=16 L3~=192/0 [W pinned]"},
      {"", "GenuineIntel 6 0xad", counts({{"raw 0x60c7", 10}, {"raw 0x4c7", 1}, {"raw 0x1f25", 3}}),
       "gnr W=82 dp_128=2 fp_x8=80 L3~=192/0 [W pinned]"},
      {"", "GenuineIntel 6 0xdd", counts({{"raw 0x1c8", 50}, {"raw 0x2c8", 7}}), "cwf W=57 dp_flops=50 sp_flops=7 [W pinned]"},
      // Alder Lake-N: Gracemont has no FP events (W null), and this set no memory events.
      {"", "GenuineIntel 6 0xbe", counts({{"raw 0x3c7", 5}}), "adln W=null"},
      // Crestmont FP_FLOPS_RETIRED (0xC8): FP64 umask 0x1, FP32 umask 0x2.
      {"", "GenuineIntel 6 0xaf", counts({{"raw 0x1c8", 50}, {"raw 0x2c8", 7}}), "srf W=57 dp_flops=50 sp_flops=7 [W pinned]"},
      // Hybrids: events on the kernel's cpu_core (type 4 here) and cpu_atom (type 10) PMUs. W's
      // events are pinned on each core type (its group fits), so each core type's group counts
      // all the work done on it and W is exact; other groups are flexible, and perf's scaling
      // takes the time on the other core type for multiplexing. Alder Lake's thread stays on
      // P-cores: the E-core group (cycles only, flexible) never runs. The Meteor Lake thread runs
      // 3 of 4 ticks on P-cores: 100 fp_x4 there, 9 FP64 flops on the E-core (409); its L2 lines
      // (flexible, P-core) are scaled by 4/3: 3 lines counted, 4 estimated.
      {"", "GenuineIntel 6 0x97", "pmu cpu_core 4\npmu cpu_atom 10\n" + counts({{"4 0x20c7", 100}, {"4 0x1f25", 3}}),
       "adl W=800 sp_256=800 L3~=192/0 not_counted [W pinned]"},
      {"", "GenuineIntel 6 0xaa", "pmu cpu_core 4\npmu cpu_atom 10\nresidency 4 0.75\n" +
           counts({{"4 0x18c7", 100}, {"10 0x1c8", 9}, {"4 0x1f25", 3}}),
       "mtl W=409 dp_flops_atom=9 fp_x4=400 L3~=256/0 multiplexed [W pinned]"},
      // Lion Cove / Cougar Cove P-cores with Skymont / Darkmont E-cores, 3 of 4 ticks on P-cores;
      // every group pinned (these sets have no memory events). Arrow Lake-H adds cpu_lowpower (11),
      // where this thread never runs: the 5 FP32 flops scripted there never happen to it, and
      // that core type's pinned group reads an exact 0. Panther Lake's thread stays on P-cores.
      {"", "GenuineIntel 6 0xbd", "pmu cpu_core 4\npmu cpu_atom 10\nresidency 4 0.75\n" +
           counts({{"4 0x4c7", 100}, {"10 0x2c8", 9}}),
       "lnl W=209 dp_128=200 sp_flops_atom=9 [W pinned]"},
      {"", "GenuineIntel 6 0xc6", "pmu cpu_core 4\npmu cpu_atom 10\nresidency 4 0.75\n" +
           counts({{"4 0x3c7", 100}, {"10 0x1c8", 9}}),
       "arl W=109 dp_flops_atom=9 fp_scalar=100 [W pinned]"},
      {"", "GenuineIntel 6 0xc5", "pmu cpu_core 4\npmu cpu_atom 10\npmu cpu_lowpower 11\nresidency 4 0.75\n" +
           counts({{"4 0x20c7", 1}, {"10 0x1c8", 9}, {"11 0x2c8", 5}}),
       "arlh W=17 dp_flops_atom=9 sp_256=8 [W pinned]"},
      {"", "GenuineIntel 6 0xcc", "pmu cpu_core 4\npmu cpu_atom 10\n" + counts({{"4 0x18c7", 1}}),
       "ptl W=4 fp_x4=4 [W pinned]"},
      // Zen 5 (this VM's CPU): fp_ret_sse_avx_ops.all 0x03/0x0f, ls_any_fills_from_sys.dram_io_all 0x44/0x48.
      {"", "AuthenticAMD 0x1a 0x02", counts({{"raw 0xf03", 900}, {"raw 0x4844", 5}}), "zen5 W=900 sp_dp=900 DRAM~=320/null [W pinned]"},
  };
  return c;
}

TEST(RunPath, EveryForcedModelGivesTheWTheScriptedCountsImply) {
  for (const Case& c : cases())
    if (!c.pfm.empty()) {
      const std::string out = run_counting(c.pfm, "cpu " + c.cpu + "\n" + c.script);
      EXPECT_EQ(out, c.expected) << c.pfm;
    }
}

// The same through /proc/cpuinfo's family and model, with libpfm4 detecting no core PMU (as on
// parts it does not know): sets qualified by an inactive PMU fall back to their raw configs.
TEST(RunPath, EveryModelByCpuidFallbackGivesTheSameW) {
  for (const Case& c : cases()) {
    const std::string out = run_counting("", "cpu " + c.cpu + "\n" + c.script);
    EXPECT_EQ(out, c.expected) << c.cpu;
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
  EXPECT_EQ(run_counting("skx", "cpu GenuineIntel 6 0x55\nschedule raw 0x3c7 1 0.5\n" +
                                    counts({{"raw 0x3c7", 1000}})),
            "skx W=1000 fp_scalar=1000 L3~=0/0 multiplexed");
}

TEST(RunPath, NeverScheduledGroupGivesNullW) {
  EXPECT_EQ(run_counting("skx", "cpu GenuineIntel 6 0x55\nschedule raw 0x3c7 0\n" +
                                    counts({{"raw 0x3c7", 1000}, {"raw 0x1ff1", 3}})),
            "skx W=null L3~=192/0 not_counted");
}

TEST(RunPath, GroupsLeaveTheNmiWatchdogsCounterFree) {
  // On Intel the watchdog takes the fixed cycles counter: cycles then needs one of the 4
  // general counters, and a group of cycles + 4 FP events never runs. Plans use 3 with it on.
  // The set's other events fill more groups than fit at once: the kernel rotates them, and the
  // region's W is perf's estimate from the ticks its group ran.
  const std::string machine = "cpu GenuineIntel 6 0x55\ncounters 4\nfixed raw 0xc0\nfixed raw 0x300\n" +
                              counts({{"raw 0x3c7", 1000}});
  EXPECT_EQ(run_counting("skx", machine + "kernel nmi_watchdog 1\n"), "skx W=1000 fp_scalar=1000 L3~=0/0 multiplexed");
  // Without the watchdog (the kernel's word for it) the plan uses all 4, as it should.
  EXPECT_EQ(run_counting("skx", machine + "fixed raw 0x3c\n"), "skx W=1000 fp_scalar=1000 L3~=0/0 multiplexed");
}

TEST(RunPath, MemoryControllersGiveDramBytesFromTheUncoreDeltas) {
  // Ice Lake-SP UNC_M_CAS_COUNT.RD 0x0f04 / .WR 0x3004 on two boxes, the first on two sockets:
  // reads 2 x 100 + 30, writes 2 x 4 lines. Exact DRAM bytes replace the L3 approximation.
  EXPECT_EQ(run_counting("icx", "cpu GenuineIntel 6 0x6a\npmu uncore_imc_0 17 0,56\npmu uncore_imc_1 18 1\n" +
                                    counts({{"17 0xf04", 100}, {"18 0xf04", 30}, {"17 0x3004", 4}, {"raw 0x1ff1", 3}})),
            "icx W=0 DRAM=14720/512 [W pinned]");
}

TEST(RunPath, RefusedOpensSayWhy) {
  EXPECT_NE(run_counting("skx", "cpu GenuineIntel 6 0x55\nfail raw 0x3c7 EBUSY\n").find("exception: perf_event_open(fp_scalar"),
            std::string::npos);
  EXPECT_NE(run_counting("skx", "cpu GenuineIntel 6 0x55\nfail raw * EACCES\n").find("exception: perf_event_open("),
            std::string::npos);
}

// In a child: the run's counting on the script, one thread opened. Returns
// "exact=<RunCounting::w.exact> pinned=<configs of pinned leaders> groups=<n>" and then each note.
std::string plan_of(const std::string& pfm, const std::string& script) {
  return testing::run_in_child([&] {
    ::setenv("LIBPFM_FORCE_PMU", pfm.empty() ? "perf" : pfm.c_str(), 1);
    ScriptedPmu pmu(script);
    replace_perf_system(&pmu);
    const Capabilities caps = probe_capabilities();
    RunCounting rc = make_run_counting(BackendKind::perf, caps, {"none"}, true);
    ProcessCounters pc(*rc.backend);
    const pid_t tid = static_cast<pid_t>(::syscall(SYS_gettid));
    pc.add_thread(tid);
    std::string pinned;
    int leaders = 0;
    for (const ScriptedPmu::Opened& o : pmu.opened()) {
      if (o.pid != tid) continue;  // the probe's own opens, system-wide (uncore) events
      leaders += o.group_fd == -1;
      if (o.attr.pinned) pinned += fmt::format("{:#x},", o.attr.config);
      if (o.group_fd != -1 && o.attr.pinned) pinned += "member!";  // only a leader may carry it
    }
    std::string out = fmt::format("exact={} pinned={} groups={}", rc.w.exact, pinned, leaders);
    for (const std::string& n : rc.notes) out += "\n" + n;
    return out;
  });
}

TEST(RunPath, WGroupIsOpenedPinnedBesideTheWatchdog) {
  // Ice Lake-SP, 8 counters, watchdog on (it holds the fixed cycles counter): W's five merged
  // events are one pinned group (leader: cycles, now on a general counter); L2 lines one more.
  const std::string icx = "cpu GenuineIntel 6 0x6a\ncounters 8\nfixed raw 0xc0\nfixed raw 0x300\nkernel nmi_watchdog 1\n";
  const std::string out = plan_of("icx", icx);
  EXPECT_EQ(out.substr(0, out.find('\n')), "exact=true pinned=0x3c, groups=2") << out;
  // Zen 4: the one flops event (a counter pair) in a pinned group of its own.
  const std::string zen4 = plan_of("", "cpu AuthenticAMD 0x19 0x61\ncounters 6\nkernel nmi_watchdog 1\n");
  EXPECT_EQ(zen4.substr(0, zen4.find('\n')), "exact=true pinned=0x1f03, groups=2") << zen4;
}

TEST(RunPath, WThatCannotFitSaysItIsAnEstimateAndHow) {
  // Skylake-SP with Hyper-Threading: 4 counters, 3 beside the watchdog, W needs 5.
  const std::string out = plan_of("skx", "cpu GenuineIntel 6 0x55\ncounters 4\nkernel nmi_watchdog 1\n");
  EXPECT_EQ(out.substr(0, out.find('\n')), "exact=false pinned= groups=3") << out;
  EXPECT_NE(out.find("\nW is an estimate: its events need 5 counters on the core PMU and 3 are usable per hardware "
                     "thread beside the NMI watchdog, so the kernel rotates them (multiplexed, scaled); more counters per "
                     "hardware thread (Hyper-Threading off doubles the 4 of Intel cores up to Cascade Lake) gives W's "
                     "events one group that is never rotated out"),
            std::string::npos) << out;
  // Skylake client: W needs 4, one more than the watchdog leaves: turning it off is enough.
  const std::string skl = plan_of("skl", "cpu GenuineIntel 6 0x5e\ncounters 4\nkernel nmi_watchdog 1\n");
  EXPECT_NE(skl.find("`sudo sysctl -w kernel.nmi_watchdog=0` gives W's events one group"), std::string::npos) << skl;
}

TEST(RunPath, UnknownModelOfAKnownFamilyCountsWithTheNearestSetAndWarns) {
  const std::string out = plan_of("", "cpu AuthenticAMD 0x1a 0x90\n");
  EXPECT_EQ(out.substr(0, out.find('\n')), "exact=true pinned=0xf03, groups=2") << out;
  EXPECT_NE(out.find("\nevent set chosen for an unknown model 0x90 of known family 0x1a: the nearest set, zen5"),
            std::string::npos) << out;
  EXPECT_EQ(run_counting("", "cpu AuthenticAMD 0x1a 0x90\n" + counts({{"raw 0xf03", 8}})), "zen5 W=8 sp_dp=8 DRAM~=0/null [W pinned]");
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
