/* The bundled example for `make demo`: two kernels whose work is known.
 *   daxpy:        y += a*x          W = 2n flops, compulsory Q = 24n bytes
 *   dgemm_naive:  C += A*B (n x n)  W = 2n^3 flops
 * Usage: demo [N_DAXPY] [N_DGEMM] */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void daxpy(long n, double a, const double *x, double *y) {
  for (long i = 0; i < n; ++i) y[i] += a * x[i];
}

__attribute__((noinline)) void dgemm_naive(long n, const double *A, const double *B, double *C) {
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < n; ++k) {
      double a = A[i * n + k];
      for (long j = 0; j < n; ++j) C[i * n + j] += a * B[k * n + j];
    }
}

int main(int argc, char **argv) {
  long n1 = argc > 1 ? atol(argv[1]) : 100000;
  long n3 = argc > 2 ? atol(argv[2]) : 200;
  double *x = malloc(sizeof(double) * n1), *y = malloc(sizeof(double) * n1);
  double *A = malloc(sizeof(double) * n3 * n3), *B = malloc(sizeof(double) * n3 * n3),
         *C = calloc(n3 * n3, sizeof(double));
  for (long i = 0; i < n1; ++i) x[i] = 1.0, y[i] = 2.0;
  for (long i = 0; i < n3 * n3; ++i) A[i] = 1.0, B[i] = 0.5;
  for (int r = 0; r < 10; ++r) daxpy(n1, 0.5, x, y);
  dgemm_naive(n3, A, B, C);
  printf("y[0]=%g C[0]=%g\n", y[0], C[0]);
  return 0;
}
