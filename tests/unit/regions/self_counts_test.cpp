#include "regions/self_counts.hpp"

#include <gtest/gtest.h>

namespace roofprof::regions {
namespace {

Instance inst(RegionId r, Tid tid, uint32_t depth, std::vector<double> counts) {
  Instance i;
  i.region = r;
  i.pid = 1;
  i.tid = tid;
  i.depth = depth;
  i.counts = std::move(counts);
  return i;
}

TEST(SelfCounts, SubtractsTheInstancesDirectlyInside) {
  SelfCounts s;
  // main(0) { a(1) { b(2) } a(1) } on thread 1; b alone at depth 0 on thread 2.
  s.add(inst(2, 1, 2, {10, 1}));
  s.add(inst(1, 1, 1, {15, 2}));
  s.add(inst(1, 1, 1, {7, 1}));
  s.add(inst(2, 2, 0, {100, 9}));
  s.add(inst(0, 1, 0, {30, 4}));
  EXPECT_EQ(s.totals().at(0), (std::vector<double>{30 - 15 - 7, 4 - 2 - 1}));
  EXPECT_EQ(s.totals().at(1), (std::vector<double>{15 - 10 + 7, 2 - 1 + 1}));
  EXPECT_EQ(s.totals().at(2), (std::vector<double>{110, 10}));
}

}  // namespace
}  // namespace roofprof::regions
