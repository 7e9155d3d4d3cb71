/* The selftest's kernels (one exported, never inlined function each: a region by symbol). */
#ifndef ROOFPROF_SELFTEST_KERNELS_H
#define ROOFPROF_SELFTEST_KERNELS_H

#define SX_KERNEL __attribute__((noinline, noclone, visibility("default")))

void sx_daxpy(long n, double a, const double *restrict x, double *restrict y);
void sx_saxpy(long n, float a, const float *restrict x, float *restrict y);
void sx_triad(long n, double s, double *restrict a, const double *restrict b, const double *restrict c);
void sx_dgemv(long n, const double *restrict A, const double *restrict x, double *restrict y);
void sx_dgemm_naive(long n, const double *restrict A, const double *restrict B, double *restrict C);
void sx_dgemm_blocked(long n, const double *restrict A, const double *restrict B, double *restrict C);
void sx_daxpy_scalar(long n, double a, const double *restrict x, double *restrict y);
int sx_fma_supported(void);
void sx_fma(long iterations, double *out);

#endif
