/* The scalar variant, built with -O2 -fno-tree-vectorize: one flop per instruction. */
#include "selftest/kernels/kernels.h"

SX_KERNEL void sx_daxpy_scalar(long n, double a, const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; i++) y[i] += a * x[i];
}
