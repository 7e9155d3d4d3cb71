/* libbench_preload_kernel.so: the function the agent hooks (a region must be called through
 * the dynamic linker; bench_calls in bench/overhead calls a function of its own executable). */
double bench_kernel(const double *x, long work) {
  double s = 0;
  for (long i = 0; i < work; ++i) s += x[i & 7] * 1.0000001;
  return s;
}
