#pragma once
// The compute kernel bodies, for the per-ISA files only. Everything is in an unnamed namespace
// on purpose: each including file is compiled with different -m flags and must get its own
// copy with internal linkage (a shared inline/template instantiation could be merged by the
// linker into the copy built for the widest ISA).
//
// A traits type V provides: type T, set1(double), add, mul, fma, hide(T&) (an empty asm that
// hides a value from the optimiser) and lanes_sum(T) -> double. N independent accumulators
// cover latency x pipes (4 cycles x 2 FMA pipes = 8 on current cores); N fits the register file
// with the two operand registers, so nothing spills (checked by bench/ceilings/check-spills.sh).
#include <cstdint>

namespace roofprof::ceilings {
namespace {

enum class BodyOp { fma, add, mul, add_mul };

template <class V, int N, BodyOp OP>
double compute_body(uint64_t iters) {
  using T = typename V::T;
  T acc[N];
#pragma GCC unroll 32
  for (int i = 0; i < N; ++i) {
    acc[i] = V::set1(1.0 + 0.001 * i);
    V::hide(acc[i]);
  }
  // x * 1 + 0 keeps every value finite and normal forever; the optimiser cannot see the 1 and 0.
  T one = V::set1(1.0), zero = V::set1(0.0);
  V::hide(one);
  V::hide(zero);
  for (uint64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 32
    for (int i = 0; i < N; ++i) {
      if constexpr (OP == BodyOp::fma) acc[i] = V::fma(acc[i], one, zero);
      else if constexpr (OP == BodyOp::add) acc[i] = V::add(acc[i], zero);
      else if constexpr (OP == BodyOp::mul) acc[i] = V::mul(acc[i], one);
      else if (i % 2 == 0) acc[i] = V::add(acc[i], zero);
      else acc[i] = V::mul(acc[i], one);
    }
  }
  double s = 0;
#pragma GCC unroll 32
  for (int i = 0; i < N; ++i) s += V::lanes_sum(acc[i]);
  return s;
}

}  // namespace
}  // namespace roofprof::ceilings

// One table row: {isa, precision, op, N, &compute_body<V, N, op>}.
#define ROOFPROF_COMPUTE_ROW(ISA, PREC, V, N, OP)                              \
  ComputeKernel {                                                              \
    Isa::ISA, Precision::PREC, Op::OP, N, &compute_body<V, N, BodyOp::OP>      \
  }
