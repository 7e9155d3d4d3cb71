#pragma once
// Working-set sizes, from the cache geometry in sysfs. A level's working set is half of what
// one thread gets of that cache (a shared cache is split between the threads sharing it), so it
// fits with room for code, stack and the other arrays; it must also be more than twice the
// level below, or the level is left out (it cannot be told apart). DRAM: eight times the
// last-level cache, at least 256 MiB, split over the threads.
#include <cstdint>
#include <vector>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

struct LevelPlan {
  Level level;
  uint64_t bytes_per_thread;  // multiple of 2 KiB (four streams of 512-byte granules)
};

uint64_t dram_total_bytes(const std::vector<CacheGeometry>& caches, uint64_t physical_memory);

std::vector<LevelPlan> plan_levels(const std::vector<CacheGeometry>& caches, int threads,
                                   uint64_t dram_total);

// --full sweep: 4 KiB .. dram_total, four sizes per doubling.
std::vector<uint64_t> sweep_sizes(uint64_t dram_total);

}  // namespace roofprof::ceilings
