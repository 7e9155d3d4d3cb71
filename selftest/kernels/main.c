/* roofprof-selftest-kernels: the program `roofprof selftest` profiles.
 *
 *   roofprof-selftest-kernels CALLS KERNEL=N [KERNEL=N ...]
 *
 * For each KERNEL=N in order: allocate and initialise its data (64-byte aligned; the
 * initialisation leaves the data in the caches, as a program that just computed it would,
 * see init()), then call the kernel CALLS times. Kernels and their expected work and traffic:
 * selftest/kernel_table.h. Exit status 2 on bad arguments, SX_EXIT_UNSUPPORTED when the CPU
 * cannot run a kernel asked for. A checksum goes to stdout so that no call is dead code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest/kernel_table.h"
#include "selftest/kernels/kernels.h"

static double checksum;

static void *alloc(long count, size_t elem) {
  size_t bytes = ((size_t)count * elem + 63) / 64 * 64;
  void *p = aligned_alloc(64, bytes ? bytes : 64);
  if (!p) {
    fprintf(stderr, "roofprof-selftest-kernels: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* Initialises `k` arrays of `count` elements element by element, all arrays at once, in the
 * order the streaming kernels touch them: data beyond the LLC are then cached as they would
 * be after a call (the warm scenario's steady state, not an artefact of initialisation). */
static void init(void **arrays, int k, long count, size_t elem) {
  for (long i = 0; i < count; i++)
    for (int a = 0; a < k; a++) {
      double x = 1 + a + (double)(i % 17) * 0.125;
      if (elem == sizeof(float)) ((float *)arrays[a])[i] = (float)x;
      else ((double *)arrays[a])[i] = x;
    }
}

/* `k` arrays of `n` elements each, initialised together. */
static void fill(long n, size_t elem, int k, void **out) {
  for (int a = 0; a < k; a++) out[a] = alloc(n, elem);
  init(out, k, n, elem);
}

static void run_axpy(int dp, int scalar, long n, long calls) {
  if (dp) {
    void *p[2];
    fill(n, 8, 2, p);
    double *x = p[0], *y = p[1];
    for (long c = 0; c < calls; c++) (scalar ? sx_daxpy_scalar : sx_daxpy)(n, 1e-3, x, y);
    checksum += y[n / 2];
    free(x), free(y);
  } else {
    void *p[2];
    fill(n, 4, 2, p);
    float *x = p[0], *y = p[1];
    for (long c = 0; c < calls; c++) sx_saxpy(n, 1e-3f, x, y);
    checksum += y[n / 2];
    free(x), free(y);
  }
}

static void run_triad(long n, long calls) {
  void *p[3];
  fill(n, 8, 3, p);
  double *a = p[0], *b = p[1], *c = p[2];
  for (long k = 0; k < calls; k++) sx_triad(n, 0.5, a, b, c);
  checksum += a[n / 2];
  free(a), free(b), free(c);
}

static void run_gemv(long n, long calls) {
  void *m, *v[2];
  fill(n * n, 8, 1, &m);
  fill(n, 8, 2, v);
  double *A = m, *x = v[0], *y = v[1];
  for (long c = 0; c < calls; c++) sx_dgemv(n, A, x, y);
  checksum += y[n / 2];
  free(A), free(x), free(y);
}

static void run_gemm(int blocked, long n, long calls) {
  void *p[3];
  fill(n * n, 8, 3, p);
  double *A = p[0], *B = p[1], *C = p[2];
  for (long c = 0; c < calls; c++) (blocked ? sx_dgemm_blocked : sx_dgemm_naive)(n, A, B, C);
  checksum += C[n * n / 2];
  free(A), free(B), free(C);
}

static void run_fma(long n, long calls) {
  void *p;
  fill(32, 8, 1, &p);
  double *out = p;
  for (long c = 0; c < calls; c++) sx_fma(n, out);
  checksum += out[5];
  free(out);
}

static int run(const char *name, long n, long calls) {
  if (!strcmp(name, "daxpy")) run_axpy(1, 0, n, calls);
  else if (!strcmp(name, "daxpy_scalar")) run_axpy(1, 1, n, calls);
  else if (!strcmp(name, "saxpy")) run_axpy(0, 0, n, calls);
  else if (!strcmp(name, "triad")) run_triad(n, calls);
  else if (!strcmp(name, "dgemv")) run_gemv(n, calls);
  else if (!strcmp(name, "dgemm_naive")) run_gemm(0, n, calls);
  else if (!strcmp(name, "dgemm_blocked")) run_gemm(1, n, calls);
  else if (!strcmp(name, "fma")) run_fma(n, calls);
  else return -1;
  return 0;
}

static const sx_kernel *find(const char *name, size_t len) {
  for (int i = 0; i < SX_N_KERNELS; i++)
    if (strlen(sx_kernels[i].name) == len && !strncmp(sx_kernels[i].name, name, len)) return &sx_kernels[i];
  return NULL;
}

static int usage(const char *why) {
  fprintf(stderr, "roofprof-selftest-kernels: %s\nusage: roofprof-selftest-kernels CALLS KERNEL=N [KERNEL=N ...]\n", why);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage("missing arguments");
  char *end;
  long calls = strtol(argv[1], &end, 10);
  if (*end || calls < 1) return usage("CALLS must be a positive integer");
  for (int i = 2; i < argc; i++) { /* check everything before running anything */
    const char *eq = strchr(argv[i], '=');
    const sx_kernel *k = eq ? find(argv[i], (size_t)(eq - argv[i])) : NULL;
    if (!k) return usage("unknown kernel (see selftest/kernel_table.h)");
    long n = strtol(eq + 1, &end, 10);
    if (*end || n < 1 || n % k->granule) return usage("N must be a positive multiple of the kernel's granule");
    if (!strcmp(k->name, "fma") && !sx_fma_supported()) {
      fprintf(stderr, "roofprof-selftest-kernels: this CPU has no AVX2+FMA: fma cannot run\n");
      return SX_EXIT_UNSUPPORTED;
    }
  }
  for (int i = 2; i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i]), argv[i]);
    if (run(name, strtol(eq + 1, NULL, 10), calls) != 0) return usage("kernel missing in main.c");
  }
  printf("checksum %g\n", checksum);
  return 0;
}
