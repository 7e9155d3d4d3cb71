/* Workloads for bench/emul/slowdown.sh.
 *   workloads dgemm N        naive triple-loop dgemm (2 N^3 flops)
 *   workloads axpy N REPS    REPS daxpy calls of length N (2 N REPS flops)
 * Built twice: -O2 (SSE2 scalar code, no FMA) and -O3 -mavx2 -mfma (FMA vector code). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noipa)) void dgemm(long n, const double* restrict A, const double* restrict B, double* restrict C)
{
   for (long i = 0; i < n; i++)
      for (long j = 0; j < n; j++) {
         double t = C[i * n + j];
         for (long k = 0; k < n; k++) t += A[i * n + k] * B[k * n + j];
         C[i * n + j] = t;
      }
}

__attribute__((noipa)) void daxpy(long n, double a, const double* restrict x, double* restrict y)
{
   for (long i = 0; i < n; i++) y[i] += a * x[i];
}

static double* alloc(long n, double v)
{
   double* p = malloc(sizeof(double) * (size_t)n);
   for (long i = 0; i < n; i++) p[i] = v + (double)(i % 7) * 0.125;
   return p;
}

int main(int argc, char** argv)
{
   if (argc >= 3 && !strcmp(argv[1], "dgemm")) {
      long n = atol(argv[2]);
      double *A = alloc(n * n, 1), *B = alloc(n * n, 2), *C = alloc(n * n, 0);
      dgemm(n, A, B, C);
      printf("%g\n", C[n * n - 1]);
      return 0;
   }
   if (argc >= 4 && !strcmp(argv[1], "axpy")) {
      long n = atol(argv[2]), reps = atol(argv[3]);
      double *x = alloc(n, 1), *y = alloc(n, 2);
      for (long r = 0; r < reps; r++) daxpy(n, 1e-9, x, y);
      printf("%g\n", y[n - 1]);
      return 0;
   }
   fprintf(stderr, "usage: %s dgemm N | axpy N REPS\n", argv[0]);
   return 2;
}
