/* Overhead benchmark: N calls of a function whose body costs WORK loop iterations.
 *   bench_calls N WORK [push|step]
 * kernel_push starts with `push rbp` (the tracer emulates it: one stop at entry);
 * kernel_step starts with an instruction that must be single-stepped out of line. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double kernel_push(double *x, long work) {
  __asm__ volatile("" ::: "rbx");  /* a callee-saved clobber: the function starts with push rbx */
  double s = 0;
  for (long i = 0; i < work; ++i) s += x[i & 7] * 1.0000001;
  return s;
}

__attribute__((noinline)) double kernel_step(double *x, long work) {
  double s = 0;
  for (long i = 0; i < work; ++i) s += x[i & 7] * 1.0000001;
  return s;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000;
  long work = argc > 2 ? atol(argv[2]) : 100;
  int step = argc > 3 && argv[3][0] == 's';
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, acc = 0;
  for (long i = 0; i < n; ++i) acc += step ? kernel_step(x, work) : kernel_push(x, work);
  printf("%g\n", acc);
  return 0;
}
