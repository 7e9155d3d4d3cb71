#include "ceilings/chase.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

namespace roofprof::ceilings {

void link_cycle(void* base, size_t lines, size_t line_bytes, uint64_t seed) {
  std::vector<uint32_t> next(lines);
  std::iota(next.begin(), next.end(), 0u);
  std::mt19937_64 rng(seed);
  // Sattolo: swapping only with strictly earlier positions gives a single cycle.
  for (size_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(next[i], next[pick(rng)]);
  }
  char* b = static_cast<char*>(base);
  for (size_t i = 0; i < lines; ++i)
    *reinterpret_cast<void**>(b + i * line_bytes) = b + size_t(next[i]) * line_bytes;
}

void* chase(void* p, uint64_t steps) {
  void** q = static_cast<void**>(p);
  for (uint64_t i = 0; i < steps; i += 16) {
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) q = static_cast<void**>(*q);
  }
  return q;
}

std::vector<uint32_t> random_order(size_t lines, uint64_t seed) {
  std::vector<uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

uint64_t random_read(const void* base, size_t line_bytes, const uint32_t* order, size_t count,
                     uint64_t passes) {
  const char* b = static_cast<const char*>(base);
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (uint64_t p = 0; p < passes; ++p) {
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
      s0 += *reinterpret_cast<const volatile uint64_t*>(b + size_t(order[i]) * line_bytes);
      s1 += *reinterpret_cast<const volatile uint64_t*>(b + size_t(order[i + 1]) * line_bytes);
      s2 += *reinterpret_cast<const volatile uint64_t*>(b + size_t(order[i + 2]) * line_bytes);
      s3 += *reinterpret_cast<const volatile uint64_t*>(b + size_t(order[i + 3]) * line_bytes);
    }
    for (; i < count; ++i)
      s0 += *reinterpret_cast<const volatile uint64_t*>(b + size_t(order[i]) * line_bytes);
  }
  return s0 + s1 + s2 + s3;
}

}  // namespace roofprof::ceilings
