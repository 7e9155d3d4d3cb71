// 512-bit kernels (built with -mavx512f -mfma, used only when CPUID reports avx512f).
#include <immintrin.h>

#include "ceilings/compute_body.hpp"
#include "ceilings/kernels.hpp"

namespace roofprof::ceilings {
namespace {

struct Avx512D {
  using T = __m512d;
  static T set1(double x) { return _mm512_set1_pd(x); }
  static T add(T a, T b) { return _mm512_add_pd(a, b); }
  static T mul(T a, T b) { return _mm512_mul_pd(a, b); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_pd(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+v"(v)); }
  static double lanes_sum(T v) {
    alignas(64) double t[8];
    _mm512_store_pd(t, v);
    double s = 0;
    for (double x : t) s += x;
    return s;
  }
};
struct Avx512F {
  using T = __m512;
  static T set1(double x) { return _mm512_set1_ps(float(x)); }
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static void hide(T& v) { asm volatile("" : "+v"(v)); }
  static double lanes_sum(T v) {
    alignas(64) float t[16];
    _mm512_store_ps(t, v);
    double s = 0;
    for (float x : t) s += x;
    return s;
  }
};

constexpr int N = 24;  // 32 zmm registers: 24 accumulators + the two operands, room to spare

constexpr ComputeKernel kTable[] = {
    ROOFPROF_COMPUTE_ROW(avx512, dp, Avx512D, N, fma),
    ROOFPROF_COMPUTE_ROW(avx512, dp, Avx512D, N, add),
    ROOFPROF_COMPUTE_ROW(avx512, dp, Avx512D, N, mul),
    ROOFPROF_COMPUTE_ROW(avx512, dp, Avx512D, N, add_mul),
    ROOFPROF_COMPUTE_ROW(avx512, sp, Avx512F, N, fma),
    ROOFPROF_COMPUTE_ROW(avx512, sp, Avx512F, N, add),
    ROOFPROF_COMPUTE_ROW(avx512, sp, Avx512F, N, mul),
    ROOFPROF_COMPUTE_ROW(avx512, sp, Avx512F, N, add_mul),
};

}  // namespace

const ComputeKernel* compute_table_avx512(int* count) {
  *count = int(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace roofprof::ceilings
