#pragma once
// Latency and random access. Both touch one element per cache line, so every access is a
// different line; the line order is random so hardware prefetchers cannot follow it.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace roofprof::ceilings {

// Links `lines` lines of `base` (`line_bytes` apart) into ONE cycle through all of them in
// random order (Sattolo's algorithm): the first word of each line holds the next line's address.
void link_cycle(void* base, size_t lines, size_t line_bytes, uint64_t seed);

// Follows the chain from `p` for `steps` dependent loads (rounded up to 16); returns the end.
void* chase(void* p, uint64_t steps);

// A random permutation of 0 .. lines-1.
std::vector<uint32_t> random_order(size_t lines, uint64_t seed);

// Reads one word of each line in `order`, `passes` times; the loads are independent, so this
// measures how many random lines per second the memory system delivers.
uint64_t random_read(const void* base, size_t line_bytes, const uint32_t* order, size_t count,
                     uint64_t passes);

}  // namespace roofprof::ceilings
