#include "tracer/probe_budget.hpp"

#include <gtest/gtest.h>

#include <map>

namespace roofprof::tracer {
namespace {

// Threads' CPU times, fed by the test (-1: ended).
struct FedRunTimes {
  std::map<pid_t, int64_t> ns;
  ProbeBudget::RunTime fn() {
    return [this](pid_t, pid_t tid) { return ns.count(tid) ? ns[tid] : -1; };
  }
};

constexpr int64_t kSecond = 1'000'000'000;
// Every thread ended (its CPU time unreadable): no thread budget, the host's /proc unread.
const ProbeBudget::RunTime kEnded = [](pid_t, pid_t) { return int64_t(-1); };

TEST(ProbeBudget, StopCostIsTheMedianStepPlusTheMeanHandling) {
  ProbeBudget b(10, kEnded);
  b.note_handling(50);
  EXPECT_EQ(b.stop_cost_ns(), 0);  // no step timed yet
  EXPECT_FALSE(b.calibrated());
  b.note_steps({300, 100, 0, -5, 200});  // 0 and negative times are not samples
  EXPECT_TRUE(b.calibrated());
  b.note_handling(70);
  EXPECT_EQ(b.stop_cost_ns(), 200 + 60);
}

TEST(ProbeBudget, KeepsTheRecentStepsOnly) {
  ProbeBudget b(10, kEnded);
  b.note_steps(std::vector<int64_t>(64, 1000));
  b.note_steps(std::vector<int64_t>(64, 10));
  EXPECT_EQ(b.stop_cost_ns(), 10);
}

TEST(ProbeBudget, HandlingLeavesOutWhatIsNotTheProbesCost) {
  ProbeBudget inside(10, kEnded);
  inside.note_step(1'000'000);
  {
    ProbeBudget::Handling h(inside);
    inside.not_probe_cost(10 * kSecond);  // a module patched during the stop
  }
  EXPECT_LT(inside.stop_cost_ns(), 0);  // 1 ms + (the handling's elapsed time - 10 s)

  ProbeBudget outside(10, kEnded);
  outside.note_step(1'000'000);
  outside.not_probe_cost(10 * kSecond);  // outside any handled stop: nothing to leave out
  { ProbeBudget::Handling h(outside); }
  EXPECT_GE(outside.stop_cost_ns(), 1'000'000);
}

TEST(ProbeBudget, IsDueEvery50msAndNeverWithoutALimit) {
  ProbeBudget b(10, kEnded);
  EXPECT_TRUE(b.due(1000));
  EXPECT_FALSE(b.due(1000 + 49'999'999));
  EXPECT_TRUE(b.due(1000 + 50'000'000));
  ProbeBudget unlimited(0, kEnded);
  EXPECT_FALSE(unlimited.due(1000));
}

TEST(ProbeBudget, CutsTheCostliestRegionsUntilTheRunIsWithinItsSlowdown) {
  FedRunTimes cpu;
  cpu.ns[11] = 0;
  ProbeBudget b(10, cpu.fn());
  b.note_step(10'000);                          // 10 us a stop
  b.count_stops(10, 11, 1, 100'000, 1000);      // 1 s of stops
  b.count_stops(10, 11, 2, 1'000, 1000);        // 10 ms
  cpu.ns[11] = 900'000'000;                     // the thread ran 0.9 s of the 1 s since
  // 1.01 s of stops in a 1 s run: without them about 10 ms (1% of the run, the floor); region 1
  // alone breaks the 10x budget, region 2 (10 ms against 90 ms allowed) does not.
  const auto cuts = b.check(kSecond + 1000, kSecond, 1, {});
  ASSERT_EQ(cuts.size(), 1u);
  EXPECT_EQ(cuts[0].region, 1u);
  EXPECT_EQ(cuts[0].wall_ns, kSecond);
  EXPECT_DOUBLE_EQ(cuts[0].cost_s, 1.0);
  EXPECT_EQ(cuts[0].thread, 0);
  EXPECT_TRUE(b.stopped(1));
  EXPECT_FALSE(b.stopped(2));
  EXPECT_TRUE(b.check(kSecond + 1000, kSecond, 1, {}).empty());  // stopped once
}

TEST(ProbeBudget, TheAgentsCostCountsAndIsSpreadOverTheThreads) {
  ProbeBudget b(10, kEnded);
  // No step timed: only the in-process agent's calls cost. 4 threads share 3.6 s of agent
  // time in a 1 s run: 0.9 s of it is the run's, 0.1 s would be left without it, 9x: within.
  EXPECT_TRUE(b.check(kSecond, kSecond, 4, {{7, 3.6e9}}).empty());
  const auto cuts = b.check(kSecond, kSecond, 4, {{7, 3.7e9}});
  ASSERT_EQ(cuts.size(), 1u);
  EXPECT_EQ(cuts[0].region, 7u);
  EXPECT_DOUBLE_EQ(cuts[0].cost_s, 3.7);
}

TEST(ProbeBudget, NoVerdictOnShortRunsOrWithoutACost) {
  ProbeBudget b(10, kEnded);
  b.count_stops(10, 11, 1, 100'000, 1000);
  EXPECT_TRUE(b.check(kSecond, kSecond, 1, {}).empty());  // no step timed, no agent
  b.note_step(10'000);
  EXPECT_TRUE(b.check(199'999'999, 199'999'999, 1, {}).empty());  // under 200 ms
  EXPECT_EQ(b.check(200'000'000, 200'000'000, 1, {}).size(), 1u);
}

TEST(ProbeBudget, AThreadSlowedPastTheLimitLosesItsCostliestRegion) {
  FedRunTimes cpu;
  cpu.ns[21] = 0;
  ProbeBudget b(10, cpu.fn());
  b.note_step(10'000);
  b.count_stops(20, 21, 5, 95'000, 1000);  // 0.95 s of stops
  b.count_stops(20, 21, 6, 10, 1000);      // 100 us
  cpu.ns[21] = 50'000'000;                 // it ran 50 ms of its second: stopped 0.95 s
  // Spread over 4 threads the run is within its budget (0.24 s of a 1 s run); the thread is
  // not: 0.95 s of its 1 s stopped, 20x slower. Cutting region 5 leaves it within.
  const auto cuts = b.check(kSecond + 1000, kSecond, 4, {});
  ASSERT_EQ(cuts.size(), 1u);
  EXPECT_EQ(cuts[0].region, 5u);
  EXPECT_EQ(cuts[0].thread, 21);
  EXPECT_DOUBLE_EQ(cuts[0].cost_s, 0.95);
  EXPECT_FALSE(b.stopped(6));
}

TEST(ProbeBudget, AThreadThatRanItsCodeOrEndedIsNotCut) {
  FedRunTimes cpu;
  cpu.ns[21] = 0;
  ProbeBudget ran(10, cpu.fn());
  ran.note_step(10'000);
  ran.count_stops(20, 21, 5, 95'000, 1000);
  cpu.ns[21] = 950'000'000;  // it ran 0.95 s: its stops overlapped other threads' work
  EXPECT_TRUE(ran.check(kSecond + 1000, kSecond, 4, {}).empty());

  cpu.ns[22] = 0;
  ProbeBudget ended(10, cpu.fn());
  ended.note_step(10'000);
  ended.count_stops(20, 22, 5, 95'000, 1000);
  cpu.ns.erase(22);
  EXPECT_TRUE(ended.check(kSecond + 1000, kSecond, 4, {}).empty());
  EXPECT_EQ(ended.stops(5), 95'000u);  // its stops stay in the run's count
}

TEST(ProbeBudget, ReportsRegionsCostingAQuarterOfTheRunOrEveryRegionWhenAttached) {
  ProbeBudget b(10, kEnded);
  b.note_step(10'000);
  b.count_stops(10, 11, 1, 100'000, 1000);  // 1 s
  b.count_stops(10, 11, 2, 1'000, 1000);    // 10 ms
  b.count_stops(10, 11, 3, 200'000, 1000);  // 2 s, capped at the run's 1 s
  const auto launched = b.report(kSecond, false);
  ASSERT_EQ(launched.size(), 2u);
  EXPECT_EQ(launched[0].region, 1u);
  EXPECT_EQ(launched[0].stops, 100'000u);
  EXPECT_DOUBLE_EQ(launched[0].estimated_s, 1.0);
  EXPECT_TRUE(launched[0].warn);
  EXPECT_EQ(launched[1].region, 3u);
  EXPECT_DOUBLE_EQ(launched[1].estimated_s, 1.0);

  const auto attached = b.report(kSecond / 10, true);  // short, but attached: every region
  ASSERT_EQ(attached.size(), 3u);
  EXPECT_EQ(attached[1].region, 2u);
  EXPECT_DOUBLE_EQ(attached[1].estimated_s, 0.01);
  EXPECT_FALSE(attached[1].warn);
  EXPECT_TRUE(b.report(kSecond / 10, false).empty());  // a short launched run: no verdict
}

TEST(ProbeBudget, StoppedRegionsAreNotReportedAgain) {
  ProbeBudget b(10, kEnded);
  b.note_step(10'000);
  b.count_stops(10, 11, 1, 100'000, 1000);
  ASSERT_EQ(b.check(kSecond, kSecond, 1, {}).size(), 1u);
  EXPECT_TRUE(b.report(kSecond, true).empty());
}

}  // namespace
}  // namespace roofprof::tracer
