// README example: OpenBLAS's dgemm_ called five times on 200x200 matrices (A = 1, B = 2, so
// every element of C is 400). Built as build/examples/blas.
#include <stdio.h>
#include <stdlib.h>

void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc);

int main(void) {
  const int n = 200;
  const double one = 1, zero = 0;
  double* a = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n * n);
  double* c = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n * n; ++i) a[i] = 1, b[i] = 2, c[i] = 0;
  for (int rep = 0; rep < 5; ++rep) dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
  printf("%.0f\n", c[0]);
  free(a);
  free(b);
  free(c);
  return 0;
}
