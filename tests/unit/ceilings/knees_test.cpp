#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ceilings/knees.hpp"
#include "ceilings/plan.hpp"

namespace roofprof::ceilings {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

// A sweep over `sizes` (ascending) whose rate at each size is `rate(size)`.
template <class F>
std::vector<SizeRate> sweep_of(const std::vector<uint64_t>& sizes, F rate) {
  std::vector<SizeRate> out;
  for (uint64_t s : sizes) out.push_back({s, rate(s)});
  return out;
}

// A strict-LRU-like hierarchy: each level's rate up to its capacity, the next level's beyond.
double steps(uint64_t s) {
  if (s <= 48 * KiB) return 300;
  if (s <= 2 * MiB) return 100;
  if (s <= 32 * MiB) return 30;
  return 8;
}

const std::vector<CacheInfo> kVm = {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 480 * MiB, 15, 64, 2}};

TEST(CeilingsKnees, SharpStepsGiveTheLastSizeBeforeEachDrop) {
  const auto sweep = sweep_of(sweep_sizes(256 * MiB), steps);
  const std::vector<uint64_t> knees = find_knees(sweep);
  // sweep_sizes: four per doubling from 4 KiB, rounded down to 2 KiB; 48 KiB is not one of them
  // (45 056 B is, 2^(15.5) rounded), 2 MiB and 32 MiB are.
  EXPECT_EQ(knees, (std::vector<uint64_t>{45056, 2 * MiB, 32 * MiB}));
  const auto m = match_knees(knees, kVm);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], (MeasuredCache{1, 45056}));
  EXPECT_EQ(m[1], (MeasuredCache{2, 2 * MiB}));
  EXPECT_EQ(m[2], (MeasuredCache{3, 32 * MiB}));
}

// A gradual fall (a shared last level, non-LRU replacement): the knee is the largest size still
// at or above the geometric middle of the plateau's best and the rate where the fall settles.
TEST(CeilingsKnees, GradualFallGivesItsMiddle) {
  const std::vector<SizeRate> sweep = {
      {1 * MiB, 30}, {2 * MiB, 31}, {4 * MiB, 28}, {8 * MiB, 20}, {16 * MiB, 15},
      {32 * MiB, 10}, {64 * MiB, 8}, {128 * MiB, 7.8}, {256 * MiB, 8.1}};
  // Best 31; falls below 0.7 x 31 = 21.7 at 8 MiB (20) and 16 MiB confirms it; settles at 64 MiB
  // (7.8 is not below 0.9 x 8); middle sqrt(31 x 8) = 15.7: 8 MiB is the last at or above it.
  EXPECT_EQ(find_knees(sweep), (std::vector<uint64_t>{8 * MiB}));
}

TEST(CeilingsKnees, OneLowPointIsNoiseAndAnUnconfirmedEndIsNoKnee) {
  const std::vector<SizeRate> dip = {{1 * MiB, 30}, {2 * MiB, 10}, {4 * MiB, 29}, {8 * MiB, 30}};
  EXPECT_TRUE(find_knees(dip).empty());
  const std::vector<SizeRate> end = {{1 * MiB, 30}, {2 * MiB, 30}, {4 * MiB, 8}};
  EXPECT_TRUE(find_knees(end).empty());
  EXPECT_TRUE(find_knees({}).empty());
}

// The VM that reports its host's 480 MiB socket: the 32 MiB knee is its L3; a knee that fits no
// level (a dip between L1 and L2 at 200 KiB, below L2 / 4) is left out, and a level without a
// knee is null.
TEST(CeilingsKnees, KneesMatchTheLevelsTheyFit) {
  const auto m = match_knees({200 * KiB, 32 * MiB}, kVm);
  EXPECT_EQ(m, (std::vector<MeasuredCache>{{1, std::nullopt}, {2, std::nullopt}, {3, 32 * MiB}}));
  // The last level's knee must lie above the level below's reported size.
  EXPECT_EQ(match_knees({40 * KiB, 1536 * KiB}, kVm)[2].effective_bytes, std::nullopt);
  // A knee above twice a level's size is not that level's.
  EXPECT_EQ(match_knees({40 * KiB, 5 * MiB}, kVm)[1].effective_bytes, std::nullopt);
  EXPECT_EQ(match_knees({40 * KiB, 5 * MiB}, kVm)[2].effective_bytes, 5 * MiB);
}

// Only the last level, and only below half of the reported size. L1 and L2 knees are recorded,
// never used: a knee of noise (L1 "12 KiB" measured with 0.1 ms samples at load average 9) must
// not shrink a private level, which is reported right.
TEST(CeilingsKnees, MeasuredSizeReplacesTheReportedLastLevelBelowHalfOfIt) {
  const auto e = effective_caches(kVm, {{1, 12 * KiB}, {2, 724 * KiB}, {3, 32 * MiB}});
  EXPECT_EQ(e[0].size, 48 * KiB);
  EXPECT_EQ(e[1].size, 2 * MiB);
  EXPECT_EQ(e[2].size, 32 * MiB);  // the VM's misreport
  EXPECT_EQ(e[2].ways, 15u);
  const std::vector<MeasuredCache> half = {{1, 45056}, {2, 2 * MiB}, {3, 240 * MiB + 2 * KiB}};
  EXPECT_EQ(measured_size(kVm[2], half), std::nullopt);  // just above half
  const std::vector<MeasuredCache> below = {{1, 45056}, {2, 2 * MiB}, {3, 240 * MiB - 2 * KiB}};
  EXPECT_EQ(measured_size(kVm[2], below), 240 * MiB - 2 * KiB);
  EXPECT_EQ(measured_size(kVm[2], {{1, 45056}, {2, 2 * MiB}, {3, std::nullopt}}), std::nullopt);
  EXPECT_EQ(effective_caches(kVm, {}), kVm);
}

// The emulator's levels: whole sets (a multiple of ways * line), ways and line kept.
TEST(CeilingsKnees, SimulatedLevelsAreResizedToWholeSets) {
  const std::vector<MeasuredCache> m = {{1, 12 * KiB}, {2, std::nullopt}, {3, 56430592}};  // 53.8 MiB
  const auto e = simulated_levels(kVm, m);
  EXPECT_EQ(e[0], kVm[0]);
  EXPECT_EQ(e[1], kVm[1]);
  EXPECT_EQ(e[2].size, 56430592u / (15 * 64) * (15 * 64));  // 58781 sets of 15 ways
  EXPECT_EQ(e[2].size % (15 * 64), 0u);
  EXPECT_EQ(e[2].ways, 15u);
  EXPECT_EQ(simulated_levels(kVm, {{1, 45056}, {2, 2 * MiB}, {3, 32 * MiB}})[2].size, 32 * MiB / 960 * 960);
  EXPECT_EQ(simulated_levels(kVm, {}), kVm);
}

TEST(CeilingsKnees, SweepIsDoneFourTimesPastTheLastLevelsKnee) {
  auto upto = [](uint64_t end) {
    std::vector<uint64_t> sizes;
    for (uint64_t s : sweep_sizes(256 * MiB))
      if (s <= end) sizes.push_back(s);
    return sweep_of(sizes, steps);
  };
  EXPECT_FALSE(sweep_done(upto(64 * MiB), kVm));
  EXPECT_FALSE(sweep_done(upto(127 * MiB), kVm));
  EXPECT_TRUE(sweep_done(upto(128 * MiB), kVm));
  // No knee for the last level: never done (the sweep goes to its limit).
  EXPECT_FALSE(sweep_done(sweep_of(sweep_sizes(256 * MiB), [](uint64_t s) { return s <= 48 * KiB ? 300.0 : 100.0; }), kVm));
}

TEST(CeilingsKnees, SweepLimitIsTwiceTheReportedLastLevelWithinMemory) {
  EXPECT_EQ(hierarchy_sweep_limit(kVm, uint64_t(24) << 30), 960 * MiB);
  EXPECT_EQ(hierarchy_sweep_limit({{1, 48 * KiB, 12, 64, 1}, {3, 32 * MiB, 16, 64, 1}}, uint64_t(24) << 30), 256 * MiB);
  EXPECT_EQ(hierarchy_sweep_limit(kVm, uint64_t(2) << 30), 512 * MiB);
}

}  // namespace
}  // namespace roofprof::ceilings
