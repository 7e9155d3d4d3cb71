// Replaying agent records through regions::Tracker: the snapshots of each record (its thread's,
// and in scope=process the process's) are the counts the tracker sees.
#include "preload/replay.hpp"

#include <cmath>
#include <gtest/gtest.h>

namespace roofprof::preload {
namespace {

using regions::CloseReason;
using regions::Instance;

Record rec(RecordKind kind, int tid, uint64_t sp, int64_t t, std::vector<uint64_t> counts,
           CloseReason why = CloseReason::Return) {
  Record r;
  r.kind = kind;
  r.reason = why;
  r.pid = 100;
  r.tid = tid;
  r.sp = sp;
  r.time_ns = t;
  r.has_counts = r.has_process_counts = !counts.empty();  // one thread: the process's are its own
  for (size_t i = 0; i < counts.size(); ++i) r.counts[i] = r.process_counts[i] = counts[i];
  return r;
}

struct Fixture {
  std::vector<Instance> out;
  regions::Tracker tracker;
  Replay replay;
  explicit Fixture(regions::Scope scope)
      : tracker([this](Instance&& i) { out.push_back(std::move(i)); }, scope), replay(2, tracker) {}
};

TEST(Replay, EnterAndReturnGiveOneInstanceWithDeltas) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x1000, 100, {10, 1}), {4});
  f.replay.feed(rec(RecordKind::StackAt, 7, 0x1008, 350, {60, 3}), {});
  ASSERT_EQ(f.out.size(), 1u);
  const Instance& i = f.out[0];
  EXPECT_EQ(i.region, 4u);
  EXPECT_EQ(i.pid, 100);
  EXPECT_EQ(i.tid, 7);
  EXPECT_EQ(i.begin_ns, 100);
  EXPECT_EQ(i.end_ns, 350);
  EXPECT_EQ(i.counts, (std::vector<double>{50, 2}));
  EXPECT_EQ(i.reason, CloseReason::Return);
  EXPECT_EQ(f.tracker.open_count(), 0u);
}

TEST(Replay, OneFunctionInSeveralRegions) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x1000, 100, {0, 0}), {1, 2});
  f.replay.feed(rec(RecordKind::StackAt, 7, 0x1008, 200, {5, 0}), {});
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_EQ(f.out[0].region + f.out[1].region, 3u);
}

// run --group-by caller: an entered call's group comes from the return address its record
// carries (asked once per region it enters).
TEST(Replay, EnteredCallsAreGroupedByTheirReturnAddress) {
  Fixture f(regions::Scope::Process);
  std::vector<std::string> asked;
  f.replay.key_calls([&asked](regions::RegionId id, int pid, uint64_t ret) {
    asked.push_back(std::to_string(id) + "@" + std::to_string(pid));
    return ret == 0x401234 ? std::string("<- phase_a") : std::string("<- phase_b");
  });
  Record a = rec(RecordKind::Enter, 7, 0x1000, 100, {0, 0});
  a.ret = 0x401234;
  Record b = rec(RecordKind::Enter, 7, 0x1000, 300, {0, 0});
  b.ret = 0x401299;
  f.replay.feed(a, {1, 2});
  f.replay.feed(rec(RecordKind::StackAt, 7, 0x1008, 200, {0, 0}), {});
  f.replay.feed(b, {1});
  f.replay.feed(rec(RecordKind::StackAt, 7, 0x1008, 400, {0, 0}), {});
  ASSERT_EQ(f.out.size(), 3u);
  EXPECT_EQ(f.out[0].group, "<- phase_a");
  EXPECT_EQ(f.out[1].group, "<- phase_a");
  EXPECT_EQ(f.out[2].group, "<- phase_b");
  EXPECT_EQ(asked, (std::vector<std::string>{"1@100", "2@100", "1@100"}));
}

TEST(Replay, UnknownRegionIsSkipped) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x1000, 100, {0, 0}), {});
  f.replay.feed(rec(RecordKind::StackAt, 7, 0x1008, 200, {5, 0}), {});
  EXPECT_TRUE(f.out.empty());
}

TEST(Replay, LongjmpClosesEverythingBelowTheTarget) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x2000, 100, {0, 0}), {1});
  f.replay.feed(rec(RecordKind::Enter, 7, 0x1000, 110, {1, 0}), {2});
  f.replay.feed(rec(RecordKind::StackAt, 7, 0x1800, 150, {4, 0}, CloseReason::Longjmp), {});
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].region, 2u);
  EXPECT_EQ(f.out[0].reason, CloseReason::Longjmp);
  EXPECT_EQ(f.tracker.open_count(), 1u);
}

// Two threads in one region when the process exits: thread 7 (the first in) did 10 of its own,
// the process 30 since 7 entered. Thread 8's own counts at the exit are not in the record
// (unknown: its instance has 0, marked); the process's delta goes to the instance that opened
// first, once, thread 8's work included.
TEST(Replay, ProcessExitRecordClosesEveryThread) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x2000, 100, {0, 0}), {1});
  f.replay.feed(rec(RecordKind::Enter, 8, 0x3000, 120, {2, 0}), {1});
  Record exit = rec(RecordKind::ProcessExit, 7, 0, 500, {10, 1}, CloseReason::ProcessExit);
  exit.process_counts = {30, 1};
  f.replay.feed(exit, {});
  ASSERT_EQ(f.out.size(), 2u);
  for (const auto& i : f.out) {
    EXPECT_EQ(i.reason, CloseReason::ProcessExit);
    EXPECT_EQ(i.end_ns, 500);
    if (i.tid == 7) {
      EXPECT_EQ(i.counts, (std::vector<double>{30, 1})) << "its own 10, the rest of the process's 30";
    } else {
      EXPECT_EQ(i.counts, (std::vector<double>{0, 0}));
      EXPECT_TRUE(i.own_unknown);
    }
  }
}

// Agent records of scope=process carry the thread's own snapshot and the process's: two
// threads in one region at once give the process's work once, each instance its own part.
TEST(Replay, ConcurrentCallsOfTwoThreadsCountTheProcessOnce) {
  Fixture f(regions::Scope::Process);
  auto with = [](Record r, std::vector<uint64_t> process) {
    for (size_t i = 0; i < process.size(); ++i) r.process_counts[i] = process[i];
    return r;
  };
  f.replay.feed(with(rec(RecordKind::Enter, 7, 0x2000, 100, {0, 0}), {0, 0}), {1});
  f.replay.feed(with(rec(RecordKind::Enter, 8, 0x3000, 110, {0, 0}), {1, 0}), {1});
  f.replay.feed(with(rec(RecordKind::StackAt, 8, 0x3008, 200, {40, 0}), {60, 0}), {});
  f.replay.feed(with(rec(RecordKind::StackAt, 7, 0x2008, 300, {50, 0}), {95, 0}), {});
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_EQ(f.out[0].tid, 8);
  EXPECT_EQ(f.out[0].counts[0], 40);
  EXPECT_EQ(f.out[1].tid, 7);
  EXPECT_EQ(f.out[1].counts[0], 55) << "its own 50 and the 5 no instance of the region holds";
}

// scope=thread: a snapshot is the recording thread's; another thread's close has no counts.
TEST(Replay, ThreadScopeSnapshotsBelongToOneThread) {
  Fixture f(regions::Scope::Thread);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x2000, 100, {0, 0}), {1});
  f.replay.feed(rec(RecordKind::Enter, 8, 0x3000, 120, {2, 0}), {1});
  f.replay.feed(rec(RecordKind::ProcessExit, 7, 0, 500, {30, 1}, CloseReason::ProcessExit), {});
  ASSERT_EQ(f.out.size(), 2u);
  for (const auto& i : f.out) {
    if (i.tid == 7) {
      EXPECT_EQ(i.counts, (std::vector<double>{30, 1}));
    } else {
      EXPECT_TRUE(std::isnan(i.counts[0]) && std::isnan(i.counts[1]));
    }
  }
}

TEST(Replay, EndOfProcessWithoutRecordHasUnknownCounts) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x2000, 100, {0, 0}), {1});
  f.replay.end_process(100, 900, CloseReason::Crash);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].reason, CloseReason::Crash);
  EXPECT_EQ(f.out[0].end_ns, 900);
  EXPECT_TRUE(std::isnan(f.out[0].counts[0]));
}

TEST(Replay, ThreadExitClosesThatThreadOnly) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x2000, 100, {0, 0}), {1});
  f.replay.feed(rec(RecordKind::Enter, 8, 0x3000, 120, {0, 0}), {1});
  f.replay.feed(rec(RecordKind::ThreadExit, 8, 0, 300, {9, 0}, CloseReason::ThreadExit), {});
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].tid, 8);
  EXPECT_EQ(f.out[0].reason, CloseReason::ThreadExit);
  EXPECT_EQ(f.tracker.open_count(), 1u);
}

TEST(Replay, RecordWithoutCountsGivesUnknownDeltas) {
  Fixture f(regions::Scope::Process);
  f.replay.feed(rec(RecordKind::Enter, 7, 0x1000, 100, {}), {1});
  f.replay.feed(rec(RecordKind::StackAt, 7, 0x1008, 200, {5, 5}), {});
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_TRUE(std::isnan(f.out[0].counts[0]));
}

// A hardware group's values are raw counts with the group's times after the events
// (record_format.h): the deltas are scaled by the times' deltas, as perf does, and flagged.
TEST(Replay, TimedGroupDeltasAreScaledByTheirTimes) {
  std::vector<Instance> out;
  regions::Tracker tracker([&out](Instance&& i) { out.push_back(std::move(i)); }, regions::Scope::Thread);
  Replay replay(3, tracker, {{1, 2, 0, 0}});  // a software event, then a group of two
  Record a = rec(RecordKind::Enter, 7, 0x1000, 100, {10, 100, 50, 1000, 1000});
  Record b = rec(RecordKind::StackAt, 7, 0x1008, 200, {20, 300, 90, 3000, 2000});
  replay.feed(a, {1});
  replay.feed(b, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].counts, (std::vector<double>{10, 400, 80}));  // 200 and 40 over half the time
  EXPECT_TRUE(out[0].multiplexed);
}

TEST(Replay, TimedGroupOnItsCountersThroughoutIsExact) {
  std::vector<Instance> out;
  regions::Tracker tracker([&out](Instance&& i) { out.push_back(std::move(i)); }, regions::Scope::Thread);
  Replay replay(1, tracker, {{0, 1, 0, 0}});
  replay.feed(rec(RecordKind::Enter, 7, 0x1000, 100, {5, 1000, 1000}), {1});
  replay.feed(rec(RecordKind::StackAt, 7, 0x1008, 200, {17, 2000, 2000}), {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].counts, (std::vector<double>{12}));
  EXPECT_FALSE(out[0].multiplexed);
}

}  // namespace
}  // namespace roofprof::preload

namespace roofprof::preload {
namespace {

Record probed(Record r, int64_t probe_ns, uint64_t boundaries) {
  r.probe_ns = probe_ns;
  r.probe_boundaries = boundaries;
  return r;
}

// The records' cumulative probe time becomes each instance's: the measured part between its
// records, and the boundaries between them at the calibration's untimed cost each. A thread id
// seen again with smaller values is a new thread.
TEST(Replay, ProbeTimeBetweenAnInstancesRecordsIsItsProbeTime) {
  Fixture f(regions::Scope::Thread);
  f.replay.set_untimed_per_boundary(10);
  f.replay.feed(probed(rec(RecordKind::Enter, 7, 0x1000, 100, {1, 1}), 40, 1), {4});     // outer
  f.replay.feed(probed(rec(RecordKind::Enter, 7, 0x0f00, 200, {2, 2}), 140, 2), {5});    // inner
  f.replay.feed(probed(rec(RecordKind::StackAt, 7, 0x0f08, 300, {3, 3}), 170, 2), {});   // inner returns
  f.replay.feed(probed(rec(RecordKind::StackAt, 7, 0x1008, 900, {4, 4}), 260, 3), {});   // outer returns
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_DOUBLE_EQ(f.out[0].probe.measured_ns, 30);     // 170 - 140
  EXPECT_DOUBLE_EQ(f.out[0].probe.calibrated_ns, 0);    // no boundary counted between them
  EXPECT_DOUBLE_EQ(f.out[1].probe.measured_ns, 220);    // 260 - 40
  EXPECT_DOUBLE_EQ(f.out[1].probe.calibrated_ns, 20);   // 2 boundaries x 10 ns
  f.replay.feed(probed(rec(RecordKind::Enter, 7, 0x1000, 1000, {5, 5}), 8, 1), {4});   // a new thread 7
  f.replay.feed(probed(rec(RecordKind::StackAt, 7, 0x1008, 1100, {6, 6}), 12, 1), {});
  ASSERT_EQ(f.out.size(), 3u);
  EXPECT_DOUBLE_EQ(f.out[2].probe.measured_ns, 4);
}

}  // namespace
}  // namespace roofprof::preload
