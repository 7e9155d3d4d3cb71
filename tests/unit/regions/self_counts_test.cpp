#include "regions/self_counts.hpp"

#include <gtest/gtest.h>

namespace roofprof::regions {
namespace {

Instance inst(RegionId r, uint64_t id, uint64_t parent, std::vector<double> counts) {
  Instance i;
  i.region = r;
  i.pid = 1;
  i.tid = 1;
  i.id = id;
  i.parent = parent;
  i.counts = std::move(counts);
  return i;
}

TEST(SelfCounts, SubtractsTheInstancesDirectlyInside) {
  SelfCounts s;
  // main(#1) { a(#2) { b(#3) } a(#4) } on one thread; b(#5) alone on another.
  s.add(inst(2, 3, 2, {10, 1}));
  s.add(inst(1, 2, 1, {15, 2}));
  s.add(inst(1, 4, 1, {7, 1}));
  s.add(inst(2, 5, 0, {100, 9}));
  s.add(inst(0, 1, 0, {30, 4}));
  EXPECT_EQ(s.totals().at(0), (std::vector<double>{30 - 15 - 7, 4 - 2 - 1}));
  EXPECT_EQ(s.totals().at(1), (std::vector<double>{15 - 10 + 7, 2 - 1 + 1}));
  EXPECT_EQ(s.totals().at(2), (std::vector<double>{110, 10}));
  EXPECT_TRUE(s.clamped().empty());
}

// A child that closes after its parent (its return was lost) is subtracted from nothing: not
// from the next instance at the parent's depth, which it never ran inside (a
// template program's self L1 reads once came out at -97 M that way).
TEST(SelfCounts, AChildClosingAfterItsParentIsNotSubtractedFromAnother) {
  SelfCounts s;
  s.add(inst(1, 2, 1, {50}));    // a(#2) closes first ...
  s.add(inst(2, 3, 2, {40}));    // ... then its child b(#3), late
  s.add(inst(1, 4, 1, {10}));    // a(#4), a sibling call with nothing inside
  s.add(inst(0, 1, 0, {100}));   // main(#1) { a, a }
  EXPECT_EQ(s.totals().at(1), (std::vector<double>{60}));
  EXPECT_EQ(s.totals().at(2), (std::vector<double>{40}));
  EXPECT_EQ(s.totals().at(0), (std::vector<double>{40}));
  EXPECT_TRUE(s.clamped().empty());
}

// Children that counted more than their parent: the parent's own count is clamped at zero
// (per counter) and the instance is counted against its region.
TEST(SelfCounts, OwnCountsBelowZeroAreClampedAndCounted) {
  SelfCounts s;
  s.add(inst(2, 2, 1, {70, 1}));
  s.add(inst(1, 1, 0, {50, 5}));
  s.add(inst(1, 3, 0, {20, 2}));
  EXPECT_EQ(s.totals().at(1), (std::vector<double>{0 + 20, 4 + 2}));
  EXPECT_EQ(s.clamped().at(1), 1u);
  EXPECT_EQ(s.clamped().count(2), 0u);
}

}  // namespace
}  // namespace roofprof::regions
