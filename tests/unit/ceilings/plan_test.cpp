#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "ceilings/buffer.hpp"
#include "ceilings/chase.hpp"
#include "ceilings/plan.hpp"
#include "ceilings/stats.hpp"

namespace roofprof::ceilings {
namespace {

const std::vector<CacheInfo> kEpyc = {
    {1, 48 << 10, 0, 64, 1}, {2, 1 << 20, 0, 64, 1}, {3, 32 << 20, 0, 64, 2}};

TEST(CeilingsPlan, WellInsideEachLevelSharedCachesSplit) {
  const uint64_t dram = dram_total_bytes(kEpyc, uint64_t(24) << 30);
  EXPECT_EQ(dram, uint64_t(256) << 20);
  auto one = plan_levels(kEpyc, 1, dram);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0].level, Level::l1);
  EXPECT_EQ(one[0].bytes_per_thread, 24u << 10);
  EXPECT_EQ(one[1].bytes_per_thread, 512u << 10);
  EXPECT_EQ(one[2].bytes_per_thread, 16u << 20);
  EXPECT_EQ(one[0].random_bytes_per_thread, 24u << 10);
  EXPECT_EQ(one[1].random_bytes_per_thread, 192u << 10);  // 4 x L1 > L2 / 8
  EXPECT_EQ(one[2].random_bytes_per_thread, 4u << 20);    // 4 x L2 = L3 / 8
  EXPECT_EQ(one[3].bytes_per_thread, dram);
  auto two = plan_levels(kEpyc, 2, dram);
  EXPECT_EQ(two[2].bytes_per_thread, 8u << 20);         // L3 shared by both threads
  EXPECT_EQ(two[2].random_bytes_per_thread, 4u << 20);  // 4 x L2 > (L3 / 2) / 8
  // A big shared L3 split over many threads: an eighth of each thread's share, at most half.
  auto many = plan_levels({{1, 48 << 10, 0, 64, 1}, {2, 1 << 20, 0, 64, 1}, {3, 512u << 20, 0, 64, 8}}, 8,
                          dram);
  EXPECT_EQ(many[2].random_bytes_per_thread, 8u << 20);
  EXPECT_EQ(two[3].bytes_per_thread, dram / 2);
  EXPECT_EQ(two[3].random_bytes_per_thread, dram / 2);
}

TEST(CeilingsPlan, LevelTooCloseToTheOneBelowIsLeftOut) {
  auto p = plan_levels({{1, 32 << 10, 64, 1}, {2, 64 << 10, 64, 1}}, 1, 256 << 20);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1].level, Level::dram);
}

TEST(CeilingsPlan, DramIsCappedByMemory) {
  EXPECT_EQ(dram_total_bytes(kEpyc, uint64_t(512) << 20), uint64_t(128) << 20);
}

TEST(CeilingsChase, SattoloVisitsEveryLineInOneCycle) {
  const size_t lines = 1000;
  Buffer b(lines * 64);
  link_cycle(b.data(), lines, 64, 7);
  std::set<void*> seen;
  void* p = b.data();
  for (size_t i = 0; i < lines; ++i) {
    seen.insert(p);
    p = *static_cast<void**>(p);
  }
  EXPECT_EQ(seen.size(), lines);
  EXPECT_EQ(p, b.data());
}

TEST(CeilingsStats, MedianMinMax) {
  auto s = summarize({3, 1, 2, 10});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  auto r = rates(10, {1, 2, 5});
  EXPECT_DOUBLE_EQ(r.median, 5);
  EXPECT_DOUBLE_EQ(r.max, 10);
  EXPECT_EQ(summarize({}).samples, 0);
}

}  // namespace
}  // namespace roofprof::ceilings
