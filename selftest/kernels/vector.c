/* Vectorised kernels, built with -O3 for the baseline x86-64 ISA (SSE2): no AVX-512, which
 * valgrind 3.19 cannot run. Lanes never pad past n (n is a multiple of 32), so W is exact. */
#include "selftest/kernels/kernels.h"

SX_KERNEL void sx_daxpy(long n, double a, const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; i++) y[i] += a * x[i];
}

SX_KERNEL void sx_saxpy(long n, float a, const float *restrict x, float *restrict y) {
  for (long i = 0; i < n; i++) y[i] += a * x[i];
}

SX_KERNEL void sx_triad(long n, double s, double *restrict a, const double *restrict b, const double *restrict c) {
  for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

/* Column-major, one axpy per column: no reduction, so no horizontal adds. */
SX_KERNEL void sx_dgemv(long n, const double *restrict A, const double *restrict x, double *restrict y) {
  for (long j = 0; j < n; j++) {
    const double xj = x[j];
    const double *col = A + j * n;
    for (long i = 0; i < n; i++) y[i] += col[i] * xj;
  }
}

/* i-j-k: the k loop is a floating-point reduction, which gcc does not reorder without
 * -ffast-math: scalar, 2 flops per iteration. */
SX_KERNEL void sx_dgemm_naive(long n, const double *restrict A, const double *restrict B, double *restrict C) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      double t = C[i * n + j];
      for (long k = 0; k < n; k++) t += A[i * n + k] * B[k * n + j];
      C[i * n + j] = t;
    }
}

#define SX_TILE 32
SX_KERNEL void sx_dgemm_blocked(long n, const double *restrict A, const double *restrict B, double *restrict C) {
  for (long ii = 0; ii < n; ii += SX_TILE)
    for (long kk = 0; kk < n; kk += SX_TILE)
      for (long jj = 0; jj < n; jj += SX_TILE) {
        long ie = ii + SX_TILE < n ? ii + SX_TILE : n;
        long ke = kk + SX_TILE < n ? kk + SX_TILE : n;
        long je = jj + SX_TILE < n ? jj + SX_TILE : n;
        for (long i = ii; i < ie; i++)
          for (long k = kk; k < ke; k++) {
            const double a = A[i * n + k];
            for (long j = jj; j < je; j++) C[i * n + j] += a * B[k * n + j];
          }
      }
}
