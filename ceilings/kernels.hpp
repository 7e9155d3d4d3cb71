#pragma once
// Kernel tables. Each table lives in a file compiled for one ISA (per-file -m flags, see
// CMakeLists.txt); the registry (kernel_registry.hpp) hands out only what CPUID says this CPU
// supports. This header declares plain types and functions only (no templates, no inline
// code), so nothing compiled for a wide ISA can leak into code that runs everywhere.
#include <cstdint>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

// Runs `iters` iterations of an unrolled block of independent vector operations and returns a
// value that depends on every accumulator (so nothing is optimised away).
using ComputeFn = double (*)(uint64_t iters);

struct ComputeKernel {
  Isa isa;
  Precision precision;
  Op op;
  int ops_per_iter;   // vector (or scalar) arithmetic instructions per iteration
  ComputeFn run;
};

// Streams over arrays of `n` doubles, `passes` times. a is written; b, c, d are read:
// load reads b; store and nt_store write a; copy a = b; triad a = b * c + d.
// n must be a multiple of kMemoryGranule; the arrays 64-byte aligned.
using MemoryFn = void (*)(double* a, const double* b, const double* c, const double* d,
                          uint64_t n, uint64_t passes);
inline constexpr uint64_t kMemoryGranule = 64;  // doubles (512 bytes)

struct MemoryKernel {
  Isa isa;
  Kind kind;
  int read_streams;
  int write_streams;
  MemoryFn run;
};

// Per-ISA tables (count through the out parameter).
const ComputeKernel* compute_table_sse2(int* count);
const ComputeKernel* compute_table_fma128(int* count);
const ComputeKernel* compute_table_avx2(int* count);
const ComputeKernel* compute_table_avx512(int* count);
const MemoryKernel* memory_table_sse2(int* count);
const MemoryKernel* memory_table_avx2(int* count);
const MemoryKernel* memory_table_avx512(int* count);

}  // namespace roofprof::ceilings
