// The spread of a region over its threads: only the threads that called it, null where a
// thread's value is unknown, flagged above max/mean 1.1.
#include "result/balance.hpp"

#include <gtest/gtest.h>

namespace roofprof::result {
namespace {

TEST(Balance, SpreadOverTheCallingThreads) {
  // Thread 2 made no call (a worker whose work is the region's others'): not in the spread.
  const std::vector<ThreadPart> parts{{0, 0, 1, 1.0, 100.0}, {0, 1, 1, 3.0, 300.0}, {0, 2, 0, 0.0, 0.0},
                                      {0, 3, 2, 2.0, 200.0}};
  const auto b = balance_of(parts);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->threads, 3u);
  EXPECT_EQ(b->time_s, (Spread{1.0, 2.0, 3.0, 2.0}));
  EXPECT_EQ(b->flops, (Spread{100, 200, 300, 200}));
  EXPECT_DOUBLE_EQ(*b->flops->imbalance(), 1.5);
  EXPECT_TRUE(imbalanced(*b));
}

TEST(Balance, OneCallingThreadHasNone) {
  EXPECT_FALSE(balance_of({{0, 0, 5, 1.0, 100.0}, {0, 1, 0, 0.0, 900.0}}));
}

TEST(Balance, AnUnknownValueMakesThatSpreadNull) {
  const auto b = balance_of({{0, 0, 1, 1.0, std::nullopt}, {0, 1, 1, 1.05, 10.0}});
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->flops);
  ASSERT_TRUE(b->time_s);
  EXPECT_FALSE(imbalanced(*b)) << "1.05 / 1.025 is under 1.1";
}

TEST(Balance, FlaggedJustAboveOnePointOne) {
  // max / mean: 1.2 / 1.0 and 1.1 / 1.0 (means of {0.8, 1.2} and {0.9, 1.1}).
  EXPECT_TRUE(imbalanced(*balance_of({{0, 0, 1, 0.8, 1.0}, {0, 1, 1, 1.2, 1.0}})));
  EXPECT_FALSE(imbalanced(*balance_of({{0, 0, 1, 0.9, 1.0}, {0, 1, 1, 1.1, 1.0}})));
  EXPECT_FALSE(spread_of({0, 0}).imbalance()) << "no mean, no ratio";
}

}  // namespace
}  // namespace roofprof::result
