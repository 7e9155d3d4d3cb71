#pragma once
// What `roofprof selftest` runs: kernels x sizes (inside and beyond the last-level cache) x
// cache states, sized from this machine's cache geometry and the kernels' own formulas
// (kernel_table.h). docs/validation.md states the rules.
#include <cstdint>
#include <string>
#include <vector>

#include "selftest/kernel_table.h"

namespace roofprof::selftest {

enum class SizeClass { InLlc, BeyondLlc };
const char* to_string(SizeClass c);  // "in LLC", "beyond LLC"

struct Case {
  const sx_kernel* kernel = nullptr;
  long n = 0;
  SizeClass size = SizeClass::InLlc;
  std::string cache_state;  // "cold" | "warm"
};

struct Plan {
  std::vector<Case> cases;
  int calls = 2;  // kernel calls per program run (per-call values are the run's mean)
  int runs = 1;   // program runs per case (median and max are over these)
  uint64_t llc_bytes = 0;
  std::vector<std::string> notes;  // what was left out and why
};

// Largest n (a multiple of the kernel's granule) whose footprint is at most `bytes` and whose
// work is at most `max_work`; 0 when even the granule is too big.
long largest_size(const sx_kernel& k, double bytes, double max_work);
// Smallest n (a multiple of the granule) whose footprint is at least `bytes`.
long smallest_size_above(const sx_kernel& k, double bytes);

// The quick or full set for a last-level cache of `llc_bytes`.
Plan make_plan(bool full, uint64_t llc_bytes);

}  // namespace roofprof::selftest
