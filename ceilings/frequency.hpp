#pragma once
// Core clock measured while we run: a chain of dependent register adds takes exactly one cycle
// per add on every x86-64 core, so adds / elapsed time is the clock the core actually ran at
// (including any time the hypervisor took the CPU away, which the kernels also suffer).
#include <cstdint>

#include "ceilings/timer.hpp"

namespace roofprof::ceilings {

double measure_ghz(const Timer& timer, uint64_t adds = uint64_t(1) << 20);

// The highest of `probes` short readings: a reading that the scheduler or the hypervisor
// interrupted is low, and a short one is rarely interrupted (on a loaded VM a single 0.1 ms
// reading was seen 15 % low in every sample of a kernel, which then ran above its "peak").
double measure_ghz_best(const Timer& timer, int probes = 16, uint64_t adds = uint64_t(1) << 15);

}  // namespace roofprof::ceilings
