/* bench_true_time WHAT N: N calls of one function, timed by the program itself around the
 * loop (CLOCK_MONOTONIC through the vDSO: no system call). Prints
 *   <checksum> calls=<calls of the function in all> per_call_us=<loop seconds / N * 1e6>
 * (static1us's spin is calibrated first with a copy of its body)
 * WHAT:
 *   tiny      a static function of this executable that returns its argument + 1
 *   static1us a static function of this executable that spins about 1 us
 *   lib       bench_kernel of libbench_preload_kernel.so with no work (an exported library
 *             function, called through the PLT)
 *   fftw      fftw_execute of a 1024-point complex 1D plan (FFTW_ESTIMATE) */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_kernel(const double *x, long work);

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* noipa: no clone, and no pure-function analysis that would hoist a call out of its loop */
__attribute__((noipa)) static long tiny(long x) { return x + 1; }

static long spin_iters = 1;
__attribute__((noipa)) static double static1us(double s) {
  for (long i = 0; i < spin_iters; ++i) s = s * 1.0000001 + 1e-9;
  return s;
}
/* the same body, to calibrate the spin without calling static1us */
__attribute__((noipa)) static double calibrate(double s) {
  for (long i = 0; i < spin_iters; ++i) s = s * 1.0000001 + 1e-9;
  return s;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "tiny";
  long n = argc > 2 ? atol(argv[2]) : 100000;
  double acc = 0;
  double t0 = 0, t1 = 0;
  long calls = n;  /* of the function WHAT names, in all */
  if (strcmp(what, "tiny") == 0) {
    long s = 0;
    t0 = now_s();
    for (long i = 0; i < n; ++i) s = tiny(s);
    t1 = now_s();
    acc = (double)s;
  } else if (strcmp(what, "static1us") == 0) {
    /* calibrate: the dependent multiply-add chain at about 1 us */
    spin_iters = 1000;
    double c0 = now_s();
    for (int i = 0; i < 1000; ++i) acc = calibrate(acc);
    double per = (now_s() - c0) / 1000;
    spin_iters = per > 0 ? (long)(1000 * 1e-6 / per) : 1000;
    if (spin_iters < 1) spin_iters = 1;
    t0 = now_s();
    for (long i = 0; i < n; ++i) acc = static1us(acc);
    t1 = now_s();
  } else if (strcmp(what, "lib") == 0) {
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    t0 = now_s();
    for (long i = 0; i < n; ++i) acc += bench_kernel(x, 0);
    t1 = now_s();
  } else if (strcmp(what, "fftw") == 0) {
    fftw_complex *in = fftw_malloc(sizeof(fftw_complex) * 1024), *out = fftw_malloc(sizeof(fftw_complex) * 1024);
    fftw_plan p = fftw_plan_dft_1d(1024, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    for (int i = 0; i < 1024; ++i) in[i][0] = i % 7, in[i][1] = 0;
    t0 = now_s();
    for (long i = 0; i < n; ++i) fftw_execute(p);
    t1 = now_s();
    acc = out[1][0];
    fftw_destroy_plan(p);
    fftw_free(in);
    fftw_free(out);
  } else {
    fprintf(stderr, "bench_true_time: unknown WHAT '%s'\n", what);
    return 2;
  }
  printf("%g calls=%ld per_call_us=%.4f\n", acc, calls, n ? (t1 - t0) / (double)n * 1e6 : 0.0);
  return 0;
}
