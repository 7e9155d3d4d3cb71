// Counter deltas as Linux perf computes them: raw count, time_enabled and time_running are
// subtracted first (evsel__compute_deltas), then the delta is scaled (perf_counts_values__scale:
// val * ena / run; run == 0 -> "<not counted>").
#include "common/counts.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace roofprof {
namespace {

struct Reading {
  uint64_t val, ena, run;
};

// perf's arithmetic, written out from its documented behaviour: u64 deltas, then
// (u64)((double)val * ena / run) when 0 < run < ena.
double perf_reference(Reading begin, Reading end, bool& not_counted) {
  const uint64_t val = end.val - begin.val, ena = end.ena - begin.ena, run = end.run - begin.run;
  not_counted = run == 0 && ena != 0;
  if (run == 0 || run >= ena) return static_cast<double>(val);
  return static_cast<double>(static_cast<uint64_t>(static_cast<double>(val) * ena / run));
}

CounterValues one_group(std::vector<double> raw, uint64_t ena, uint64_t run) {
  CounterValues v;
  v.values = std::move(raw);
  v.groups.push_back({0, v.values.size(), ena, run});
  return v;
}

TEST(CounterDelta, ReproducesPerfsArithmeticOnMultiplexedGroups) {
  // A group that ran 30% of the time before the region and 70% inside it, with very different
  // event rates before and inside: scaling totals first gets this wrong, deltas first does not.
  const std::vector<std::pair<Reading, Reading>> cases = {
      {{123456789, 4000000000, 1200000000}, {193456789, 5000000000, 1900000000}},
      {{0, 0, 0}, {1000000007, 3000000011, 1000000003}},
      {{5, 1000, 0}, {77777777777, 900001000, 123456789}},   // not scheduled yet at entry
      {{31, 1000, 1000}, {4031, 2000, 1500}},
  };
  for (const auto& [b, e] : cases) {
    const CounterDelta d = counter_delta(one_group({double(b.val)}, b.ena, b.run),
                                         one_group({double(e.val)}, e.ena, e.run));
    bool nc = false;
    const double want = perf_reference(b, e, nc);
    ASSERT_EQ(d.values.size(), 1u);
    EXPECT_FALSE(d.not_counted);
    EXPECT_LE(std::fabs(d.values[0] - want) / want, 1e-9) << d.values[0] << " vs perf " << want;
  }
}

TEST(CounterDelta, ScalingTotalsBeforeSubtractingWasWrong) {
  // Where scaling totals before subtracting goes wrong: 1e8 events inside a region during which the
  // group ran half the time, after a long phase without events that ran fully.
  // perf: 5e7 * 1e9 / 5e8 = 1e8.
  const Reading b{0, 9000000000, 9000000000}, e{50000000, 10000000000, 9500000000};
  const CounterDelta d = counter_delta(one_group({0}, b.ena, b.run), one_group({5e7}, e.ena, e.run));
  EXPECT_NEAR(d.values[0], 1e8, 1e-9 * 1e8);
  EXPECT_TRUE(d.multiplexed);
  const double scaled_first = 5e7 * 1e10 / 9.5e9 - 0;  // what roofprof computed before
  EXPECT_GT(std::fabs(scaled_first - 1e8) / 1e8, 0.4);
}

TEST(CounterDelta, NeverScheduledGroupIsNotCountedNotZero) {
  const CounterDelta d =
      counter_delta(one_group({0, 0}, 1000, 0), one_group({0, 0}, 5000, 0));
  EXPECT_TRUE(d.not_counted);
  EXPECT_TRUE(std::isnan(d.values[0]));
  EXPECT_TRUE(std::isnan(d.values[1]));
}

TEST(CounterDelta, ThreadThatDidNotRunReadsExactZero) {
  const CounterDelta d = counter_delta(one_group({7}, 1000, 0), one_group({7}, 1000, 0));
  EXPECT_FALSE(d.not_counted);
  EXPECT_FALSE(d.multiplexed);
  EXPECT_EQ(d.values[0], 0.0);
}

TEST(CounterDelta, EachGroupIsScaledByItsOwnTimesAndUngroupedValuesSubtract) {
  CounterValues b, e;
  b.values = {10, 100, 200, 5};
  e.values = {20, 150, 260, 9};
  b.groups = {{0, 1, 100, 100}, {1, 2, 100, 50}};
  e.groups = {{0, 1, 200, 200}, {1, 2, 200, 75}};  // group 1 ran 25 of 100 ns
  const CounterDelta d = counter_delta(b, e);
  ASSERT_EQ(d.values.size(), 4u);
  EXPECT_EQ(d.values[0], 10);
  EXPECT_DOUBLE_EQ(d.values[1], 50 * 4.0);
  EXPECT_DOUBLE_EQ(d.values[2], 60 * 4.0);
  EXPECT_EQ(d.values[3], 4);  // outside every group (e.g. a replayed software event): exact
  EXPECT_TRUE(d.multiplexed);
}

}  // namespace
}  // namespace roofprof

namespace roofprof {
namespace {

// A process read of one group per thread: summed values and times, and each thread's part.
struct Part {
  uint64_t serial;
  double val;
  uint64_t ena, run;
};
CounterValues process_of(const std::vector<Part>& parts) {
  CounterValues v;
  v.values = {0};
  v.groups.push_back({0, 1, 0, 0});
  for (const Part& p : parts) {
    v.values[0] += p.val;
    v.groups[0].enabled += p.ena;
    v.groups[0].running += p.run;
    v.threads.push_back({p.serial, {p.val}, {{0, 1, p.ena, p.run}}});
  }
  return v;
}

TEST(CounterDelta, ProcessDeltaScalesEachThreadThenSums) {
  // Thread 1 ran its group all the time (300 events, exact); thread 2 a quarter of its time (10
  // events seen: 40). perf's per-thread counting gives 340; pooling the times first gave
  // 310 x 2000 / 1250 = 496.
  const CounterDelta d = counter_delta(process_of({{1, 0, 0, 0}, {2, 0, 0, 0}}),
                                       process_of({{1, 300, 1000, 1000}, {2, 10, 1000, 250}}));
  EXPECT_DOUBLE_EQ(d.values[0], 340);
  EXPECT_TRUE(d.multiplexed);
  EXPECT_FALSE(d.not_counted);
}

TEST(CounterDelta, OneThreadWhoseGroupNeverRanMakesTheProcessTotalNotCounted) {
  // Pooled, thread 2's zero running time hides in thread 1's: 500 x 2000 / 1000 = 1000, a number
  // for work nobody counted. Per thread, the total is unknown.
  const CounterDelta d = counter_delta(process_of({{1, 0, 0, 0}, {2, 0, 0, 0}}),
                                       process_of({{1, 500, 1000, 1000}, {2, 0, 1000, 0}}));
  EXPECT_TRUE(std::isnan(d.values[0]));
  EXPECT_TRUE(d.not_counted);
}

TEST(CounterDelta, ThreadPartsAreMatchedBySerialNotPosition) {
  // Thread 1 exited before the region (its part unchanged: nothing), thread 3 started inside it
  // (from zero), thread 2 ran all along.
  const CounterDelta d = counter_delta(process_of({{1, 70, 500, 500}, {2, 5, 100, 100}}),
                                       process_of({{1, 70, 500, 500}, {3, 9, 400, 400}, {2, 25, 300, 300}}));
  EXPECT_DOUBLE_EQ(d.values[0], 20 + 9);
  EXPECT_FALSE(d.multiplexed);
}

TEST(CounterDelta, SystemWideTailIsScaledByItsOwnTimes) {
  CounterValues b = process_of({{1, 0, 0, 0}}), e = process_of({{1, 8, 100, 100}});
  b.values.push_back(1000);
  b.groups.push_back({1, 1, 50, 50});
  e.values.push_back(1600);
  e.groups.push_back({1, 1, 250, 150});
  const CounterDelta d = counter_delta(b, e);
  EXPECT_DOUBLE_EQ(d.values[0], 8);
  EXPECT_DOUBLE_EQ(d.values[1], 600.0 * 200 / 100);
}

TEST(CounterDelta, PinnedGroupNotRunningIsOnTheOtherCoreTypeNotMultiplexed) {
  // A pinned group is never rotated out; on a hybrid it does not run while its thread is on the
  // other core type, where its events do not occur: its raw delta is exact.
  CounterValues b = one_group({0}, 0, 0), e = one_group({400}, 1000, 750);
  b.groups[0].pinned = e.groups[0].pinned = true;
  const CounterDelta d = counter_delta(b, e);
  EXPECT_DOUBLE_EQ(d.values[0], 400);
  EXPECT_FALSE(d.multiplexed);
  CounterValues never = one_group({0}, 1000, 0);
  never.groups[0].pinned = true;
  EXPECT_DOUBLE_EQ(counter_delta(b, never).values[0], 0);
}

}  // namespace
}  // namespace roofprof

namespace roofprof {
namespace {

TEST(CounterDelta, ThreadPooledAfterItsExitCountsOnlyWhatItDidInTheInterval) {
  // Thread 2 (exact all along) had 30 at the start and exited with 50: ProcessCounters pooled it
  // into part 0, which already held 1000 of threads gone before. Thread 1 was scaled.
  CounterValues b = process_of({{0, 1000, 4000, 4000}, {1, 0, 0, 0}, {2, 30, 300, 300}});
  CounterValues e = process_of({{0, 1050, 4500, 4500}, {1, 10, 1000, 500}});
  const CounterDelta d = counter_delta(b, e);
  EXPECT_DOUBLE_EQ(d.values[0], 20 + 20);
}

}  // namespace
}  // namespace roofprof
