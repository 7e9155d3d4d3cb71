#include "counters/scaling.hpp"

#include <gtest/gtest.h>

#include "counters/backend.hpp"

namespace roofprof::counters {
namespace {

TEST(ScaleGroup, FullyRunningGroupIsExact) {
  ScaledGroup s = scale_group({1000, 1000, {7, 0, 42}});
  EXPECT_EQ(s.values, (std::vector<double>{7, 0, 42}));
  EXPECT_FALSE(s.multiplexed);
}

TEST(ScaleGroup, HalfRunningGroupIsDoubledAndFlagged) {
  ScaledGroup s = scale_group({1000, 500, {10, 3}});
  EXPECT_EQ(s.values, (std::vector<double>{20, 6}));
  EXPECT_TRUE(s.multiplexed);
}

TEST(ScaleGroup, ThreeQuartersRunning) {
  ScaledGroup s = scale_group({400, 300, {300}});
  ASSERT_EQ(s.values.size(), 1u);
  EXPECT_DOUBLE_EQ(s.values[0], 400.0);
  EXPECT_TRUE(s.multiplexed);
}

TEST(ScaleGroup, NeverScheduledGroupIsNotCountedRatherThanZero) {
  ScaledGroup s = scale_group({1000, 0, {0, 0}});
  ASSERT_EQ(s.values.size(), 2u);
  EXPECT_FALSE(is_counted(s.values[0]));
  EXPECT_FALSE(is_counted(s.values[1]));
  EXPECT_EQ(counted_value(s.values[0]), std::nullopt);
}

TEST(ScaleGroup, ThreadThatHasNotRunReadsExactZeros) {
  ScaledGroup s = scale_group({0, 0, {0, 0}});
  EXPECT_EQ(s.values, (std::vector<double>{0, 0}));
  EXPECT_FALSE(s.multiplexed);
  EXPECT_EQ(counted_value(s.values[0]), 0.0);
}

TEST(NotCounted, PropagatesThroughSumsAndDeltas) {
  EXPECT_FALSE(is_counted(5.0 + kNotCounted));
  EXPECT_FALSE(is_counted(kNotCounted - 5.0));
  EXPECT_TRUE(is_counted(0.0));
}

}  // namespace
}  // namespace roofprof::counters
