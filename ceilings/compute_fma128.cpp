// Scalar and 128-bit FMA kernels (VEX-encoded FMA3; built with -mavx -mfma, used only when
// CPUID reports both).
#include <immintrin.h>

#include "ceilings/compute_body.hpp"
#include "ceilings/kernels.hpp"

namespace roofprof::ceilings {
namespace {

struct ScalarD {
  using T = double;
  static T set1(double x) { return x; }
  static T fma(T a, T b, T c) { return __builtin_fma(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) { return v; }
};
struct ScalarF {
  using T = float;
  static T set1(double x) { return float(x); }
  static T fma(T a, T b, T c) { return __builtin_fmaf(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) { return v; }
};
struct SseD {
  using T = __m128d;
  static T set1(double x) { return _mm_set1_pd(x); }
  static T fma(T a, T b, T c) { return _mm_fmadd_pd(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) {
    alignas(16) double t[2];
    _mm_store_pd(t, v);
    return t[0] + t[1];
  }
};
struct SseF {
  using T = __m128;
  static T set1(double x) { return _mm_set1_ps(float(x)); }
  static T fma(T a, T b, T c) { return _mm_fmadd_ps(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) {
    alignas(16) float t[4];
    _mm_store_ps(t, v);
    return double(t[0]) + t[1] + t[2] + t[3];
  }
};

constexpr int N = 14;  // 16 xmm registers: 14 accumulators + the two operands

constexpr ComputeKernel kTable[] = {
    ROOFPROF_COMPUTE_ROW(scalar, dp, ScalarD, N, fma),
    ROOFPROF_COMPUTE_ROW(scalar, sp, ScalarF, N, fma),
    ROOFPROF_COMPUTE_ROW(sse, dp, SseD, N, fma),
    ROOFPROF_COMPUTE_ROW(sse, sp, SseF, N, fma),
};

}  // namespace

const ComputeKernel* compute_table_fma128(int* count) {
  *count = int(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace roofprof::ceilings
