/* Library kernels for bench/emul/vs_cachegrind.sh and bench/native/speed.sh:
 * what users profile.
 *   libs dgemm N CALLS   OpenBLAS dgemm_ (N x N, column-major), CALLS times
 *   libs fftw N CALLS    FFTW 1D complex forward transform of N points (FFTW_ESTIMATE), CALLS times
 * Prints a checksum on stdout, and on stderr the wall time of the CALLS calls ("calls_s=S"). */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: libs dgemm|fftw N CALLS\n");
    return 2;
  }
  int n = atoi(argv[2]), calls = atoi(argv[3]);
  double check = 0, t0 = 0, t1 = 0;
  if (!strcmp(argv[1], "dgemm")) {
    size_t elems = (size_t)n * n;
    double *a = malloc(sizeof(double) * elems), *b = malloc(sizeof(double) * elems), *c = calloc(elems, sizeof(double));
    for (size_t i = 0; i < elems; ++i) a[i] = b[i] = 1.0 / (double)(1 + i % 7);
    double one = 1.0, zero = 0.0;
    t0 = now_s();
    for (int r = 0; r < calls; ++r) dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    t1 = now_s();
    check = c[0];
  } else if (!strcmp(argv[1], "fftw")) {
    fftw_complex *in = fftw_malloc(sizeof(fftw_complex) * n), *out = fftw_malloc(sizeof(fftw_complex) * n);
    fftw_plan p = fftw_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    for (int i = 0; i < n; ++i) in[i][0] = in[i][1] = 1.0 / (1 + i % 5);
    t0 = now_s();
    for (int r = 0; r < calls; ++r) fftw_execute(p);
    t1 = now_s();
    check = out[1][0];
  } else {
    fprintf(stderr, "libs: unknown kernel %s\n", argv[1]);
    return 2;
  }
  printf("%g\n", check);
  fprintf(stderr, "calls_s=%.6f\n", t1 - t0);
  return 0;
}
