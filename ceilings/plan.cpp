#include "ceilings/plan.hpp"

#include <algorithm>
#include <cmath>

namespace roofprof::ceilings {
namespace {

constexpr uint64_t kRound = 2048;

uint64_t round_down(uint64_t v) { return v / kRound * kRound; }

Level level_of(int n) { return n == 1 ? Level::l1 : n == 2 ? Level::l2 : Level::l3; }

}  // namespace

uint64_t dram_total_bytes(const std::vector<CacheInfo>& caches, uint64_t physical_memory) {
  uint64_t llc = 0;
  for (const auto& c : caches) llc = std::max(llc, c.size);
  uint64_t total = std::max<uint64_t>(8 * llc, uint64_t(256) << 20);
  if (physical_memory > 0) total = std::min(total, physical_memory / 4);
  return round_down(total);
}

uint64_t hierarchy_sweep_limit(const std::vector<CacheInfo>& caches, uint64_t physical_memory) {
  uint64_t llc = 0;
  for (const auto& c : caches) llc = std::max(llc, c.size);
  const uint64_t want = round_down(std::max<uint64_t>(2 * llc, uint64_t(256) << 20));
  return std::min(want, dram_total_bytes(caches, physical_memory));
}

std::vector<LevelPlan> plan_levels(const std::vector<CacheInfo>& caches, int threads,
                                   uint64_t dram_total) {
  std::vector<LevelPlan> out;
  uint64_t below = 0;  // per-thread capacity of the level below
  for (const auto& c : caches) {
    const int sharing = std::max(1, std::min(c.shared_by_cpus, threads));
    const uint64_t per_thread = c.size / sharing;
    const uint64_t ws = round_down(per_thread / 2);
    const uint64_t random =
        below == 0 ? ws : round_down(std::min(per_thread / 2, std::max(4 * below, per_thread / 8)));
    if (ws > 2 * below && ws >= kRound) out.push_back({level_of(c.level), ws, random});
    below = std::max(below, per_thread);
  }
  const uint64_t dram = round_down(dram_total / std::max(1, threads));
  out.push_back({Level::dram, dram, dram});
  return out;
}

std::vector<uint64_t> sweep_sizes(uint64_t dram_total) {
  std::vector<uint64_t> out;
  // 4 KiB x 2^(k/4): every fourth size an exact power of two (no accumulated rounding).
  for (int k = 0;; ++k) {
    const double s = 4096 * std::exp2(k / 4.0);
    if (s > double(dram_total)) break;
    const uint64_t b = round_down(uint64_t(s));
    if (out.empty() || b != out.back()) out.push_back(b);
  }
  return out;
}

}  // namespace roofprof::ceilings
