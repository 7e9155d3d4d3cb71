#include "regions/aggregate.hpp"

#include <gtest/gtest.h>

#include <set>

namespace roofprof::regions {
namespace {

TEST(Quantiles, LinearInterpolationBetweenOrderStatistics) {
  auto q = quantiles({4, 1, 3, 2, 5});
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->min, 1);
  EXPECT_DOUBLE_EQ(q->q1, 2);
  EXPECT_DOUBLE_EQ(q->median, 3);
  EXPECT_DOUBLE_EQ(q->q3, 4);
  EXPECT_DOUBLE_EQ(q->max, 5);
  auto even = quantiles({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(even->median, 2.5);
  EXPECT_DOUBLE_EQ(even->q1, 1.75);
  EXPECT_FALSE(quantiles({}));
}

TEST(Aggregator, SumsCallsTimesCountersThreadsAndReasons) {
  Aggregator a;
  a.add(Instance{1, 100, 7, 0, 2'000'000'000, {5, 1}, false, CloseReason::Return});
  a.add(Instance{1, 100, 8, 0, 1'000'000'000, {3, 2}, true, CloseReason::Longjmp});
  const auto& r = a.regions().at(1);
  EXPECT_EQ(r.calls, 2u);
  EXPECT_DOUBLE_EQ(r.time_s, 3.0);
  EXPECT_DOUBLE_EQ(r.counter_totals[0], 8);
  EXPECT_DOUBLE_EQ(r.counter_totals[1], 3);
  EXPECT_TRUE(r.multiplexed);
  EXPECT_EQ(r.threads(), 2u);
  EXPECT_EQ(r.closed_by.at(CloseReason::Longjmp), 1u);
  Aggregator b;
  b.add(Instance{1, 200, 9, 0, 1'000'000'000, {1, 1}, false, CloseReason::Return});
  a.merge(b);
  EXPECT_EQ(a.regions().at(1).calls, 3u);
  EXPECT_EQ(a.regions().at(1).durations_s.size(), 3u);
  EXPECT_EQ(a.regions().at(1).threads(), 2u);  // the larger run's threads, not 3
}

// Compensation: an instance's probe time comes off its duration (per call and in total), never
// more than the duration; the measured time and both parts are kept, and merge adds them up.
TEST(Aggregator, CompensationSubtractsTheProbeTimeUpToTheDuration) {
  Aggregator a;
  Instance i{1, 100, 7, 0, 1'000, {}, false, CloseReason::Return};
  i.probe = ProbeTime{300, 100};  // 400 of 1000 ns
  a.add(i);
  Instance short_one{1, 100, 7, 2'000, 2'100, {}, false, CloseReason::Return};
  short_one.probe = ProbeTime{150, 50};  // 200 ns in a 100 ns instance: 100 at most, in proportion
  a.add(short_one);
  const auto& r = a.regions().at(1);
  EXPECT_DOUBLE_EQ(r.time_measured_s, 1100e-9);
  EXPECT_NEAR(r.time_s, 600e-9, 1e-18);
  EXPECT_NEAR(r.probe_subtracted.measured_ns, 300 + 75, 1e-9);
  EXPECT_NEAR(r.probe_subtracted.calibrated_ns, 100 + 25, 1e-9);
  ASSERT_EQ(r.durations_s.size(), 2u);
  EXPECT_NEAR(r.durations_s[0], 600e-9, 1e-18);
  EXPECT_NEAR(r.durations_s[1], 0.0, 1e-18);
  EXPECT_NEAR(r.thread_parts().begin()->second.time_s, 600e-9, 1e-18);
  Aggregator b;
  b.add(i);
  a.merge(b);
  EXPECT_NEAR(a.regions().at(1).time_measured_s, 2100e-9, 1e-18);
  EXPECT_NEAR(a.regions().at(1).probe_subtracted.measured_ns, 675, 1e-9);
}

// Resumed instances (re-entries into an inlined copy's code) are no calls: their time and counts
// are the region's, their time goes to their thread's last call, and they are no closes.
TEST(Aggregator, AResumedInstanceContinuesItsThreadsLastCall) {
  Aggregator a;
  auto add = [&](Tid tid, int64_t begin, int64_t end, bool resumed, CloseReason why = CloseReason::SpanStop) {
    Instance i{1, 100, tid, begin, end, {1}, false, why};
    i.resumed = resumed;
    a.add(i);
  };
  add(8, 0, 2'000'000'000, true);  // before any call of thread 8: time and counts, no call
  add(7, 0, 1'000'000'000, false);
  add(8, 0, 4'000'000'000, false);
  add(7, 0, 500'000'000, true);
  add(7, 0, 250'000'000, true, CloseReason::Crash);
  const auto& r = a.regions().at(1);
  EXPECT_EQ(r.calls, 2u);
  EXPECT_DOUBLE_EQ(r.time_s, 7.75);
  EXPECT_DOUBLE_EQ(r.counter_totals[0], 5);
  EXPECT_EQ(r.durations_s, (std::vector<double>{1.75, 4.0}));
  EXPECT_EQ(r.closed_by.at(CloseReason::SpanStop), 2u);  // the calls'
  EXPECT_EQ(r.closed_by.at(CloseReason::Crash), 1u);     // an abnormal end is said
  EXPECT_EQ(r.run_parts.at({100, 7}).calls, 1u);
  EXPECT_DOUBLE_EQ(r.run_parts.at({100, 8}).time_s, 6.0);
  EXPECT_EQ(r.threads(), 2u);
}

// Instances of one region, thread and reason in a row, then each of them changing, and back:
// every thread, process and reason is counted whatever the order.
TEST(Aggregator, RunsAndChangesOfRegionThreadProcessAndReason) {
  Aggregator a;
  auto add = [&](RegionId r, int pid, Tid tid, CloseReason why) {
    a.add(Instance{r, pid, tid, 0, 10, {1}, false, why, {}});
  };
  add(1, 100, 7, CloseReason::Return);
  add(1, 100, 7, CloseReason::Return);
  add(1, 100, 8, CloseReason::Return);
  add(2, 100, 8, CloseReason::Return);
  add(1, 100, 8, CloseReason::Exception);
  add(1, 101, 8, CloseReason::Exception);
  add(1, 100, 7, CloseReason::Return);
  a.next_run();
  add(1, 100, 7, CloseReason::Return);
  const auto& r1 = a.regions().at(1);
  EXPECT_EQ(r1.calls, 7u);
  EXPECT_DOUBLE_EQ(r1.counter_totals[0], 7);
  EXPECT_EQ(r1.closed_by.at(CloseReason::Return), 5u);
  EXPECT_EQ(r1.closed_by.at(CloseReason::Exception), 2u);
  EXPECT_EQ(r1.pids, (std::set<int>{100, 101}));
  EXPECT_EQ(r1.thread_ids, (std::set<Tid>{7}));  // this run's
  EXPECT_EQ(r1.threads(), 2u);
  EXPECT_EQ(a.regions().at(2).calls, 1u);
  EXPECT_EQ(a.regions().at(2).threads(), 1u);
}

TEST(Aggregator, ThreadsOfRepeatedRunsAreTheLargestRunsNotTheirSum) {
  Aggregator a;
  a.add(Instance{1, 100, 7, 0, 10, {}, false, CloseReason::Return});
  a.next_run();
  a.add(Instance{1, 101, 8, 0, 10, {}, false, CloseReason::Return});
  a.next_run();
  a.add(Instance{1, 102, 9, 0, 10, {}, false, CloseReason::Return});
  a.add(Instance{1, 102, 10, 0, 10, {}, false, CloseReason::Return});
  EXPECT_EQ(a.regions().at(1).threads(), 2u);
  a.next_run();
  a.add(Instance{1, 103, 11, 0, 10, {}, false, CloseReason::Return});
  EXPECT_EQ(a.regions().at(1).threads(), 2u);
  EXPECT_EQ(a.regions().at(1).calls, 5u);
}

// Each thread's part: its calls, time and own counts (the first instance's `others` are the
// region's, not its thread's); threads are numbered by pid, then tid, and the runs of --repeat
// add up by number.
TEST(Aggregator, ThreadPartsAreNumberedByPidAndTidAndAddUpOverRuns) {
  Aggregator a;
  Instance first{1, 100, 12, 0, 3'000'000'000, {50}, false, CloseReason::Return};
  first.others = {30};  // 30 of its 50: threads without an instance
  a.add(first);
  a.add(Instance{1, 100, 11, 0, 1'000'000'000, {7}, false, CloseReason::Return});
  a.add(Instance{1, 100, 11, 0, 1'000'000'000, {8}, false, CloseReason::Return});
  auto parts = a.regions().at(1).thread_parts();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts.at({0, 0}).calls, 2u);  // tid 11: the process's first thread in tid order
  EXPECT_DOUBLE_EQ(parts.at({0, 0}).time_s, 2.0);
  EXPECT_EQ(parts.at({0, 0}).own, (std::vector<double>{15}));
  EXPECT_EQ(parts.at({0, 1}).own, (std::vector<double>{20}));
  EXPECT_EQ(a.regions().at(1).others_totals, (std::vector<double>{30}));
  a.next_run();  // the program again: other pid and tids, the same numbers
  a.add(Instance{1, 300, 41, 0, 1'000'000'000, {1}, false, CloseReason::Return});
  a.add(Instance{1, 300, 40, 0, 1'000'000'000, {2}, false, CloseReason::Return});
  parts = a.regions().at(1).thread_parts();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts.at({0, 0}).calls, 3u);
  EXPECT_EQ(parts.at({0, 0}).own, (std::vector<double>{17}));
  EXPECT_EQ(parts.at({0, 1}).own, (std::vector<double>{21}));
  Aggregator b;  // merged from another aggregator: likewise
  b.add(Instance{1, 500, 5, 0, 1'000'000'000, {100}, false, CloseReason::Return});
  a.merge(b);
  EXPECT_EQ(a.regions().at(1).thread_parts().at({0, 0}).own, (std::vector<double>{117}));
}

// Two processes (a fork child): each numbers its own threads.
TEST(Aggregator, EachProcessNumbersItsOwnThreads) {
  Aggregator a;
  a.add(Instance{1, 100, 100, 0, 10, {1}, false, CloseReason::Return});
  a.add(Instance{1, 101, 101, 0, 10, {2}, false, CloseReason::Return});
  a.add(Instance{1, 101, 102, 0, 10, {3}, false, CloseReason::Return});
  const auto parts = a.regions().at(1).thread_parts();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts.at({0, 0}).own, (std::vector<double>{1}));
  EXPECT_EQ(parts.at({1, 0}).own, (std::vector<double>{2}));
  EXPECT_EQ(parts.at({1, 1}).own, (std::vector<double>{3}));
}

}  // namespace
}  // namespace roofprof::regions

namespace roofprof::regions {
namespace {

TEST(Aggregator, SumsGroupTimesOfInstancesAndMergedRuns) {
  // The times say what share of the region a group ran (on a hybrid: its core type's share).
  Aggregator a;
  Instance one{1, 100, 7, 0, 10, {1, 1}, false, CloseReason::Return};
  one.group_times = {{0, 1000, 750}, {1, 1000, 250}};
  Instance two = one;
  two.group_times = {{0, 3000, 3000}, {1, 3000, 0}};
  a.add(one);
  a.add(two);
  Aggregator b;
  b.add(one);
  a.merge(b);
  const auto& g = a.regions().at(1).group_times;
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].enabled, 5000u);
  EXPECT_EQ(g[0].running, 4500u);
  EXPECT_EQ(g[1].first, 1u);
  EXPECT_EQ(g[1].running, 500u);
}

// The trace export's instances: the first kKeptPerThread of each region on each thread of each
// run, as they were (times, compensated duration, depth, deltas), and the count of all.
TEST(Aggregator, KeepsTheFirstInstancesOfEachThreadInEachRun) {
  Aggregator a;
  a.next_run();  // as run does before each run of --repeat
  for (size_t i = 0; i < kKeptPerThread + 3; ++i) {
    Instance x{1, 100, 7, int64_t(1000 * i), int64_t(1000 * i + 600), {double(i)}, false, CloseReason::Return};
    x.probe = ProbeTime{100, 0};
    x.depth = 2;
    a.add(x);
  }
  Instance anchor{1, 100, 8, 50, 90, {5}, false, CloseReason::Longjmp};
  anchor.others = {3};
  a.add(anchor);
  a.next_run();
  a.add(Instance{1, 200, 9, 10, 20, {1}, false, CloseReason::Return});
  const auto kept = a.regions().at(1).kept();
  ASSERT_EQ(kept.size(), 3u);
  const KeptThread& busy = kept.at({0, 100, 7});
  EXPECT_EQ(busy.instances, kKeptPerThread + 3);
  EXPECT_EQ(busy.left_out(), 3u);
  ASSERT_EQ(busy.first.size(), kKeptPerThread);
  EXPECT_EQ(busy.first[5].begin_ns, 5000);
  EXPECT_EQ(busy.first[5].end_ns, 5600);
  EXPECT_NEAR(busy.first[5].time_s, 500e-9, 1e-18);  // 600 ns less 100 ns of probes
  EXPECT_EQ(busy.first[5].depth, 2u);
  EXPECT_EQ(busy.first[5].counts, std::vector<double>{5});
  const KeptThread& other = kept.at({0, 100, 8});
  ASSERT_EQ(other.first.size(), 1u);
  EXPECT_EQ(other.first[0].reason, CloseReason::Longjmp);
  EXPECT_EQ(other.first[0].others, std::vector<double>{3});
  EXPECT_EQ(kept.at({1, 200, 9}).instances, 1u);  // the second run
}

// Without next_run before the first run (the emulated run, tests), the first run is run 0 too.
TEST(Aggregator, KeptInstancesOfARunWithoutNextRunAreRunZero) {
  Aggregator a;
  a.add(Instance{1, 100, 7, 0, 10, {}, false, CloseReason::Return});
  a.next_run();
  a.add(Instance{2, 101, 8, 0, 10, {}, false, CloseReason::Return});
  EXPECT_EQ(a.regions().at(1).kept().count({0, 100, 7}), 1u);
  EXPECT_EQ(a.regions().at(2).kept().count({1, 101, 8}), 1u);
}

// Another run merged (--repeat's runs aggregated apart): its kept instances are the runs after this one's.
TEST(Aggregator, MergedRunsKeepTheirInstancesAsLaterRuns) {
  Aggregator a, b;
  a.add(Instance{1, 100, 7, 0, 10, {}, false, CloseReason::Return});
  b.add(Instance{1, 200, 9, 5, 10, {}, false, CloseReason::Return});
  a.merge(b);
  const auto kept = a.regions().at(1).kept();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept.at({0, 100, 7}).first.at(0).end_ns, 10);
  EXPECT_EQ(kept.at({1, 200, 9}).first.at(0).begin_ns, 5);
}

}  // namespace
}  // namespace roofprof::regions
