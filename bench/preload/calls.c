/* bench_preload N WORK: N calls of bench_kernel (in a shared library, through the PLT), each
 * costing WORK loop iterations. Prints the result, then the loop's wall time and CPU time
 * (this process only: a tool's own process does not count, the agent inside this one does):
 *   <acc> loop_s=<CLOCK_MONOTONIC seconds> cpu_s=<CLOCK_PROCESS_CPUTIME_ID seconds> */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double bench_kernel(const double *x, long work);

static double seconds(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  long work = argc > 2 ? atol(argv[2]) : 0;
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, acc = 0;
  double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  for (long i = 0; i < n; ++i) acc += bench_kernel(x, work);
  double w1 = seconds(CLOCK_MONOTONIC), c1 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  printf("%g loop_s=%.6f cpu_s=%.6f\n", acc, w1 - w0, c1 - c0);
  return 0;
}
