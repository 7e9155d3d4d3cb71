/* The bundled example for `make demo` (examples/demo.sh): three kernels whose work is known,
 * of low, middle and high intensity. With the default sizes each kernel's data is more than
 * any x86-64 L1 holds and at most 160 KiB, so it streams between the L1 and the L2 cache: every
 * kernel has traffic at L2, and the demo plots the L2 roofline.
 *   daxpy:       y += a*x                     W = 2n flops per call; loads x, y, stores y
 *   dgemm_naive: C += A*B (n x n, i-k-j)      W = 2n^3 flops per call; B streams from L2
 *   horner:      y = p(x), p of degree 16     W = 32n flops per call; loads x, stores y
 * Usage: demo [N_DAXPY] [N_DGEMM] [N_HORNER]   (defaults 10000, 120, 10000) */
#include <stdio.h>
#include <stdlib.h>

enum { DAXPY_CALLS = 200, DGEMM_CALLS = 5, HORNER_CALLS = 50, DEGREE = 16 };

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

/* c[0] + x (c[1] + x (c[2] + ...)): DEGREE multiplies and DEGREE adds per element. */
__attribute__((noinline)) void horner(long n, const double *c, const double *x, double *y) {
  for (long i = 0; i < n; ++i) {
    double p = c[DEGREE];
    for (int d = DEGREE - 1; d >= 0; --d) p = p * x[i] + c[d];
    y[i] = p;
  }
}

static double *filled(long n, double v) {
  double *p = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!p) {
    fprintf(stderr, "demo: out of memory\n");
    exit(1);
  }
  for (long i = 0; i < n; ++i) p[i] = v;
  return p;
}

int main(int argc, char **argv) {
  long n1 = argc > 1 ? atol(argv[1]) : 10000;
  long n3 = argc > 2 ? atol(argv[2]) : 120;
  long nh = argc > 3 ? atol(argv[3]) : 10000;
  double *x = filled(n1, 1.0), *y = filled(n1, 2.0);
  double *A = filled(n3 * n3, 1.0), *B = filled(n3 * n3, 0.5), *C = filled(n3 * n3, 0.0);
  double *hx = filled(nh, 0.5), *hy = filled(nh, 0.0), c[DEGREE + 1];
  for (int d = 0; d <= DEGREE; ++d) c[d] = 1.0 / (d + 1);
  for (int r = 0; r < DAXPY_CALLS; ++r) daxpy(n1, 0.5, x, y);
  for (int r = 0; r < DGEMM_CALLS; ++r) dgemm_naive(n3, A, B, C);
  for (int r = 0; r < HORNER_CALLS; ++r) horner(nh, c, hx, hy);
  printf("y[0]=%g C[0]=%g p(0.5)=%.6f\n", n1 > 0 ? y[0] : 0.0, n3 > 0 ? C[0] : 0.0,
         nh > 0 ? hy[0] : 0.0);
  return 0;
}
