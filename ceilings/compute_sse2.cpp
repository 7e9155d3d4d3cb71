// Scalar and 128-bit add/mul kernels, legacy SSE2 encoding (the x86-64 baseline; no extra flags).
#include <immintrin.h>

#include "ceilings/compute_body.hpp"
#include "ceilings/kernels.hpp"

namespace roofprof::ceilings {
namespace {

struct ScalarD {
  using T = double;
  static T set1(double x) { return x; }
  static T add(T a, T b) { return a + b; }
  static T mul(T a, T b) { return a * b; }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) { return v; }
};
struct ScalarF {
  using T = float;
  static T set1(double x) { return float(x); }
  static T add(T a, T b) { return a + b; }
  static T mul(T a, T b) { return a * b; }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) { return v; }
};
struct SseD {
  using T = __m128d;
  static T set1(double x) { return _mm_set1_pd(x); }
  static T add(T a, T b) { return _mm_add_pd(a, b); }
  static T mul(T a, T b) { return _mm_mul_pd(a, b); }
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
  static T add(T a, T b) { return _mm_add_ps(a, b); }
  static T mul(T a, T b) { return _mm_mul_ps(a, b); }
  static void hide(T& v) { asm volatile("" : "+x"(v)); }
  static double lanes_sum(T v) {
    alignas(16) float t[4];
    _mm_store_ps(t, v);
    return double(t[0]) + t[1] + t[2] + t[3];
  }
};

constexpr int N = 14;  // 16 xmm registers: 14 accumulators + the two operands

constexpr ComputeKernel kTable[] = {
    ROOFPROF_COMPUTE_ROW(scalar, dp, ScalarD, N, add),
    ROOFPROF_COMPUTE_ROW(scalar, dp, ScalarD, N, mul),
    ROOFPROF_COMPUTE_ROW(scalar, dp, ScalarD, N, add_mul),
    ROOFPROF_COMPUTE_ROW(scalar, sp, ScalarF, N, add),
    ROOFPROF_COMPUTE_ROW(scalar, sp, ScalarF, N, mul),
    ROOFPROF_COMPUTE_ROW(scalar, sp, ScalarF, N, add_mul),
    ROOFPROF_COMPUTE_ROW(sse, dp, SseD, N, add),
    ROOFPROF_COMPUTE_ROW(sse, dp, SseD, N, mul),
    ROOFPROF_COMPUTE_ROW(sse, dp, SseD, N, add_mul),
    ROOFPROF_COMPUTE_ROW(sse, sp, SseF, N, add),
    ROOFPROF_COMPUTE_ROW(sse, sp, SseF, N, mul),
    ROOFPROF_COMPUTE_ROW(sse, sp, SseF, N, add_mul),
};

}  // namespace

const ComputeKernel* compute_table_sse2(int* count) {
  *count = int(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace roofprof::ceilings
