#pragma once
// Working-set sizes, from the cache geometry in sysfs, per thread, of what one thread gets of a
// cache (a shared cache is split between the threads sharing it). Streaming kernels: half of
// it. Random access (pointer chase, random lines): L1 half; higher levels four times the level
// below or an eighth of the level, whichever is larger, at most half, because random lines over
// a big last-level cache leave the TLB's reach and would time page walks (on a VM a nested
// walk costs more than the DRAM access). A level whose half would not exceed twice the level
// below is left out (it cannot be told apart). DRAM: eight times the last-level cache, at
// least 256 MiB, split over the threads (both kinds).
#include <cstdint>
#include <vector>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

struct LevelPlan {
  Level level;
  uint64_t bytes_per_thread;         // streaming kernels; multiple of 2 KiB
  uint64_t random_bytes_per_thread;  // pointer chase and random access; multiple of 2 KiB
};

uint64_t dram_total_bytes(const std::vector<CacheInfo>& caches, uint64_t physical_memory);

std::vector<LevelPlan> plan_levels(const std::vector<CacheInfo>& caches, int threads,
                                   uint64_t dram_total);

// The measured hierarchy's sweep (measure_hierarchy) goes up to twice the reported last level, at
// least 256 MiB, at most dram_total_bytes (a quarter of the memory): past a knee even where the
// last level is reported right. It stops earlier once the last level's knee is found.
uint64_t hierarchy_sweep_limit(const std::vector<CacheInfo>& caches, uint64_t physical_memory);

// --full sweep: 4 KiB .. dram_total, four sizes per doubling.
std::vector<uint64_t> sweep_sizes(uint64_t dram_total);

}  // namespace roofprof::ceilings
