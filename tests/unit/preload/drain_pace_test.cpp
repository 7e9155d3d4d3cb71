#include "preload/drain_pace.hpp"

#include <gtest/gtest.h>

namespace roofprof::preload {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(DrainPace, AtOnceBeforeTheFirstDrainAndWhileRecordsKeepComing) {
  DrainPace p;
  EXPECT_EQ(p.wait_ns(0), 0);
  p.drained(100, 5 * kMs);
  EXPECT_EQ(p.wait_ns(5 * kMs), 0);  // the ring may be full: drain again now
}

// Caught up after records: short naps for 10 ms, so that a program calling fast does not wait
// for slots through a 2 ms sleep; then the quiet pace.
TEST(DrainPace, FiftyMicrosecondsWhileRecordsCameInTheLastTenMilliseconds) {
  DrainPace p;
  p.drained(100, 0);
  p.drained(0, 1 * kMs);
  EXPECT_EQ(p.wait_ns(1 * kMs), DrainPace::kBusyNs);
  EXPECT_EQ(p.wait_ns(1 * kMs + 30'000), DrainPace::kBusyNs - 30'000);
  EXPECT_EQ(p.wait_ns(1 * kMs + DrainPace::kBusyNs), 0);
  p.drained(0, 9 * kMs);
  EXPECT_EQ(p.wait_ns(9 * kMs), DrainPace::kBusyNs);
  p.drained(0, 11 * kMs);  // 11 ms since the last records
  EXPECT_EQ(p.wait_ns(11 * kMs), DrainPace::kQuietNs);
  EXPECT_EQ(p.wait_ns(12 * kMs), DrainPace::kQuietNs - 1 * kMs);
  EXPECT_EQ(p.wait_ns(20 * kMs), 0);  // overdue: never negative
}

TEST(DrainPace, AQuietProgramIsDrainedEveryTwoMilliseconds) {
  DrainPace p;
  p.drained(0, 100 * kMs);
  EXPECT_EQ(p.wait_ns(100 * kMs), 2 * kMs);
}

}  // namespace
}  // namespace roofprof::preload
