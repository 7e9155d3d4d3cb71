// The emulated pass shared by run and survey (run/emulated_pass.hpp): what its end means for the
// result, per policy, with the emulated run given (no valgrind).
#include "run/emulated_pass.hpp"

#include <gtest/gtest.h>

#include <csignal>

#include "common/error.hpp"
#include "supervisor/signals.hpp"

namespace roofprof::run {
namespace {

const std::vector<std::string> kPassCounters = {"instructions", "flops_dp_scalar", "bytes_read_L1", "bytes_written_L1"};

probes::Planner pass_planner() { return probes::Planner({regions::parse_region("work"), regions::parse_region("idle")}); }

// An emulated run with `calls` calls of region 0 ("work"), each 10 instructions, 4 flops and
// 16 bytes read, 8 written; exit status 0.
emul::Result emulated_calls(int calls) {
  emul::Result e;
  e.counters = kPassCounters;
  e.exit_code = 0;
  e.aggregate.next_run();
  for (int k = 0; k < calls; ++k) {
    regions::Instance inst;
    inst.region = 0;
    inst.pid = inst.tid = 7;
    inst.begin_ns = 1000 * k;
    inst.end_ns = 1000 * k + 500;
    inst.counts = {10, 4, 16, 8};
    inst.id = uint64_t(k) + 1;
    e.aggregate.add(inst);
  }
  return e;
}

// A native run's result: "work" called `calls` times, timed; "idle" never called; exit 0.
result::Run native_result(uint64_t calls) {
  result::Run res;
  res.complete = true;
  res.exit_status = 0;
  res.wall_time_s = 2.0;
  result::Region work;
  work.name = "work";
  work.calls = calls;
  work.time_s = 1.0;
  result::Region idle;
  idle.name = "idle";
  res.regions = {work, idle};
  return res;
}

emul::Result emulated_interrupted(int calls) {
  auto e = emulated_calls(calls);
  e.interrupted = true;
  return e;
}

PassPolicy traffic_only_policy() {
  PassPolicy policy;
  policy.traffic_only = true;
  return policy;
}

// The regions "work" and "idle"; `res` a native run's, "work" called 3 times.
class EmulatedPass : public ::testing::Test {
 protected:
  PassOutcome pass(const PassPolicy& policy, const Emulator& emulate) {
    return emulated_pass(policy, planner_, emulate, res);
  }

  probes::Planner planner_ = pass_planner();
  result::Run res = native_result(3);
};

TEST_F(EmulatedPass, MergesExactWorkIntoTheNativeRegions) {
  PassPolicy policy;
  policy.compare_native_ending = true;
  PassOutcome out = pass(policy, [] { return emulated_calls(3); });
  ASSERT_TRUE(out.emulated.has_value());
  EXPECT_FALSE(out.interrupted);
  EXPECT_EQ(out.error, "");
  EXPECT_TRUE(res.complete);
  const result::Region& work = res.regions.at(0);
  EXPECT_EQ(work.calls, 3u);
  EXPECT_EQ(work.time_s, 1.0);  // the native run's
  EXPECT_EQ(work.flops, 12.0);
  EXPECT_EQ(work.instructions, 30.0);
  EXPECT_EQ(work.bytes.at("L1").read, 48.0);
  EXPECT_EQ(work.bytes.at("L1").write, 24.0);
  EXPECT_EQ(work.sources.at("flops"), "emul");
  EXPECT_EQ(res.regions.at(1).flops, 0.0);  // called in neither run: measured none
  EXPECT_TRUE(res.warnings.empty()) << res.warnings.front();
}

TEST_F(EmulatedPass, InterruptedLeavesWorkNullAndSaysWhyForEachRegionCalled) {
  PassOutcome out = pass(PassPolicy{}, [] { return emulated_interrupted(2); });
  EXPECT_FALSE(out.emulated.has_value());
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(out.error, "");
  EXPECT_FALSE(res.complete);
  EXPECT_FALSE(res.regions.at(0).flops.has_value());  // never the partial 8
  EXPECT_EQ(res.warnings, (std::vector<std::string>{
                              "the emulated run was interrupted: flops and bytes were not measured (null)",
                              "region 'work': flops and bytes (W and Q) not measured (null): the emulated run was "
                              "interrupted"}));
}

TEST_F(EmulatedPass, InterruptedSurveySaysItOnceAndKeepsTheEmulatedCalls) {
  res = result::Run{};
  PassPolicy policy;
  policy.untimed_calls_source = "emulated run";
  policy.warn_each_region = false;
  PassOutcome out = pass(policy, [] { return emulated_interrupted(2); });
  EXPECT_TRUE(out.interrupted);
  EXPECT_FALSE(res.complete);
  ASSERT_EQ(res.regions.size(), 2u);
  EXPECT_EQ(res.regions[0].calls, 2u);
  EXPECT_EQ(res.regions[0].sources.at("calls"), "emulated run");
  EXPECT_FALSE(res.regions[0].flops.has_value());
  EXPECT_EQ(res.warnings,
            std::vector<std::string>{"the emulated run was interrupted: flops and bytes were not measured (null)"});
}

TEST_F(EmulatedPass, SignalBeforeValgrindStartedIsAnInterruption) {
  PassOutcome out = pass(traffic_only_policy(), []() -> emul::Result { throw Interrupted(SIGTERM); });
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(out.error, "");
  EXPECT_FALSE(res.complete);
  EXPECT_EQ(res.warnings, (std::vector<std::string>{
                              "roofprof was interrupted (SIGTERM) before the emulated run: bytes (Q) below L1 were "
                              "not measured (null)",
                              "region 'work': bytes (Q) below L1 not measured (null): roofprof was interrupted "
                              "(SIGTERM) before the emulated run"}));
}

TEST_F(EmulatedPass, FailureIsTheCallersErrorAndTheNativeRunIsKept) {
  PassOutcome out = pass(PassPolicy{}, []() -> emul::Result { throw UserError("no valgrind"); });
  EXPECT_EQ(out.error, "no valgrind");
  EXPECT_FALSE(out.interrupted);
  EXPECT_FALSE(out.emulated.has_value());
  EXPECT_TRUE(res.complete);
  EXPECT_EQ(res.regions.at(0).time_s, 1.0);
  EXPECT_EQ(res.warnings, std::vector<std::string>{"emulated run failed: no valgrind"});
}

TEST_F(EmulatedPass, TrafficOnlyFailureIsAWarning) {
  PassOutcome out = pass(traffic_only_policy(), []() -> emul::Result { throw UserError("no valgrind"); });
  EXPECT_EQ(out.error, "");
  EXPECT_TRUE(res.complete);
  EXPECT_EQ(res.warnings,
            std::vector<std::string>{"bytes (Q) below L1 were not measured: the emulated run failed: no valgrind"});
}

TEST_F(EmulatedPass, TrafficOnlyKeepsTheNativeWork) {
  res.regions[0].flops = 12;
  res.regions[0].sources["flops"] = "native";
  ASSERT_TRUE(pass(traffic_only_policy(), [] { return emulated_calls(3); }).emulated.has_value());
  EXPECT_EQ(res.regions[0].sources.at("flops"), "native");
  EXPECT_EQ(res.regions[0].bytes.at("L1").read, 48.0);
}

TEST_F(EmulatedPass, AnEndingOtherThanTheNativeRunsIsCutShortOnlyWhenCompared) {
  auto killed = [] {
    auto e = emulated_calls(3);
    e.exit_code = -1;
    e.signal = SIGSYS;
    return e;
  };
  PassPolicy policy;
  policy.compare_native_ending = true;
  PassOutcome out = pass(policy, killed);
  EXPECT_FALSE(out.emulated.has_value());
  EXPECT_FALSE(out.interrupted);
  EXPECT_FALSE(res.complete);
  EXPECT_FALSE(res.regions[0].flops.has_value());
  ASSERT_FALSE(res.warnings.empty());
  EXPECT_EQ(res.warnings[0], "the emulated run ended early: the program was killed by SIGSYS under valgrind "
                             "where it exited with 0 natively: flops and bytes were not measured (null)");

  res = native_result(3);
  policy.compare_native_ending = false;
  EXPECT_TRUE(pass(policy, killed).emulated.has_value());
  EXPECT_EQ(res.regions[0].flops, 12.0);
}

TEST_F(EmulatedPass, TheOnlyRunGivesTheRegionsAndTheEnding) {
  res = result::Run{};
  res.wall_time_s = 1.0;
  PassPolicy policy;
  policy.untimed_calls_source = "agent (emulated run)";
  policy.ending_from_emulation = true;
  PassOutcome out = pass(policy, [] {
    auto e = emulated_calls(2);
    e.exit_code = 3;
    return e;
  });
  ASSERT_TRUE(out.emulated.has_value());
  EXPECT_TRUE(res.complete);
  EXPECT_EQ(res.exit_status, 3);
  EXPECT_FALSE(res.term_signal.has_value());
  EXPECT_FALSE(res.wall_time_s.has_value());
  ASSERT_EQ(res.regions.size(), 2u);
  EXPECT_EQ(res.regions[0].calls, 2u);
  EXPECT_EQ(res.regions[0].sources.at("calls"), "agent (emulated run)");
  EXPECT_FALSE(res.regions[0].time_s.has_value());
  EXPECT_EQ(res.regions[0].flops, 8.0);
}

}  // namespace
}  // namespace roofprof::run
