/* Pure FMA work on registers: 8 independent chains of 256-bit double FMAs (the target
 * attribute keeps the rest of the program baseline x86-64). 64 flops per iteration. */
#include <immintrin.h>

#include "selftest/kernels/kernels.h"

int sx_fma_supported(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

__attribute__((target("avx2,fma"))) SX_KERNEL void sx_fma(long iterations, double *out) {
  __m256d m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-9);
  __m256d a0 = _mm256_set1_pd(1), a1 = _mm256_set1_pd(2), a2 = _mm256_set1_pd(3), a3 = _mm256_set1_pd(4);
  __m256d a4 = _mm256_set1_pd(5), a5 = _mm256_set1_pd(6), a6 = _mm256_set1_pd(7), a7 = _mm256_set1_pd(8);
  for (long i = 0; i < iterations; i++) {
    a0 = _mm256_fmadd_pd(a0, m, c);
    a1 = _mm256_fmadd_pd(a1, m, c);
    a2 = _mm256_fmadd_pd(a2, m, c);
    a3 = _mm256_fmadd_pd(a3, m, c);
    a4 = _mm256_fmadd_pd(a4, m, c);
    a5 = _mm256_fmadd_pd(a5, m, c);
    a6 = _mm256_fmadd_pd(a6, m, c);
    a7 = _mm256_fmadd_pd(a7, m, c);
  }
  _mm256_storeu_pd(out + 0, a0);
  _mm256_storeu_pd(out + 4, a1);
  _mm256_storeu_pd(out + 8, a2);
  _mm256_storeu_pd(out + 12, a3);
  _mm256_storeu_pd(out + 16, a4);
  _mm256_storeu_pd(out + 20, a5);
  _mm256_storeu_pd(out + 24, a6);
  _mm256_storeu_pd(out + 28, a7);
}
