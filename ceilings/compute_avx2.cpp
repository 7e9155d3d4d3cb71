// 256-bit kernels (built with -mavx2 -mfma, used only when CPUID reports both).
#include <immintrin.h>

#include "ceilings/compute_body.hpp"
#include "ceilings/kernels.hpp"

namespace roofprof::ceilings {
namespace {

struct AvxD {
  using T = __m256d;
  static T set1(double x) { return _mm256_set1_pd(x); }
  static T add(T a, T b) { return _mm256_add_pd(a, b); }
  static T mul(T a, T b) { return _mm256_mul_pd(a, b); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_pd(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) {
    alignas(32) double t[4];
    _mm256_store_pd(t, v);
    return t[0] + t[1] + t[2] + t[3];
  }
};
struct AvxF {
  using T = __m256;
  static T set1(double x) { return _mm256_set1_ps(float(x)); }
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) {
    alignas(32) float t[8];
    _mm256_store_ps(t, v);
    double s = 0;
    for (float x : t) s += x;
    return s;
  }
};

constexpr int N = 14;  // 16 ymm registers: 14 accumulators + the two operands

constexpr ComputeKernel kTable[] = {
    ROOFPROF_COMPUTE_ROW(avx2, dp, AvxD, N, fma), ROOFPROF_COMPUTE_ROW(avx2, dp, AvxD, N, add),
    ROOFPROF_COMPUTE_ROW(avx2, dp, AvxD, N, mul), ROOFPROF_COMPUTE_ROW(avx2, dp, AvxD, N, add_mul),
    ROOFPROF_COMPUTE_ROW(avx2, sp, AvxF, N, fma), ROOFPROF_COMPUTE_ROW(avx2, sp, AvxF, N, add),
    ROOFPROF_COMPUTE_ROW(avx2, sp, AvxF, N, mul), ROOFPROF_COMPUTE_ROW(avx2, sp, AvxF, N, add_mul),
};

}  // namespace

const ComputeKernel* compute_table_avx2(int* count) {
  *count = int(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace roofprof::ceilings
