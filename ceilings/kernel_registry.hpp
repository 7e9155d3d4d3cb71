#pragma once
// The kernels this CPU can run, chosen at run time by CPUID.
#include <vector>

#include "ceilings/kernels.hpp"

namespace roofprof::ceilings {

// Every compute kernel whose ISA (and FMA, for op fma) CPUID reports.
std::vector<ComputeKernel> compute_kernels();

// The streaming kernels of the widest ISA CPUID reports (avx512 > avx2 > sse).
std::vector<MemoryKernel> memory_kernels();

}  // namespace roofprof::ceilings
