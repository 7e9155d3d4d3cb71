#pragma once
// Core clock measured while we run: a chain of dependent register adds takes exactly one cycle
// per add on every x86-64 core, so adds / elapsed time is the clock the core actually ran at
// (including any time the hypervisor took the CPU away, which the kernels also suffer).
#include <cstdint>

#include "ceilings/timer.hpp"

namespace roofprof::ceilings {

double measure_ghz(const Timer& timer, uint64_t adds = uint64_t(1) << 20);

}  // namespace roofprof::ceilings
