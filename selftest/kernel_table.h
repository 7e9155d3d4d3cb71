/* The selftest's kernels and what one call of each must do: exact work W and the compulsory
 * memory traffic Q_r / Q_w of a cold call (the seed paper's Table I, with write-allocate:
 * a store to a line the call never reads still fetches it). One definition, read by the
 * kernels program (selftest/kernels/) to validate its arguments and by `roofprof selftest`
 * (the selftest/ library) to choose sizes and compute measured/expected ratios. C and C++.
 *
 * n is the kernel's size argument: the vector length (axpy, triad), the matrix order (gemv,
 * gemm) or the number of iterations (fma). Doubles are 8 bytes, floats 4. */
#ifndef ROOFPROF_SELFTEST_KERNEL_TABLE_H
#define ROOFPROF_SELFTEST_KERNEL_TABLE_H

typedef struct {
  const char *name;   /* argument of the kernels program: "daxpy" */
  const char *symbol; /* the exported function, profiled as a region: "sx_daxpy" */
  const char *what;   /* one line for the table's legend */
  long granule;       /* n is rounded down to a multiple of this */
  double (*work)(double n);      /* W per call, flops (an FMA is 2) */
  double (*read)(double n);      /* compulsory Q_r per call, bytes; NULL: not checked */
  double (*write)(double n);     /* compulsory Q_w per call, bytes; NULL: not checked */
  double (*footprint)(double n); /* bytes of data the call touches (chooses the sizes) */
} sx_kernel;

static inline double sx_w_2n(double n) { return 2 * n; }
static inline double sx_w_2n2(double n) { return 2 * n * n; }
static inline double sx_w_2n3(double n) { return 2 * n * n * n; }

/* y = a x + y */
static inline double sx_axpy_d_read(double n) { return 16 * n; }
static inline double sx_axpy_d_write(double n) { return 8 * n; }
static inline double sx_axpy_s_read(double n) { return 8 * n; }
static inline double sx_axpy_s_write(double n) { return 4 * n; }
/* a = b + s c: b and c read, a written (and fetched first: write-allocate) */
static inline double sx_triad_read(double n) { return 24 * n; }
static inline double sx_triad_write(double n) { return 8 * n; }
static inline double sx_triad_footprint(double n) { return 24 * n; }
/* y = A x + y, A n x n */
static inline double sx_gemv_read(double n) { return 8 * n * n + 16 * n; }
static inline double sx_gemv_write(double n) { return 8 * n; }
/* C = A B + C, all n x n */
static inline double sx_gemm_read(double n) { return 24 * n * n; }
static inline double sx_gemm_write(double n) { return 8 * n * n; }
/* fma: 8 independent chains of 4-lane (256-bit) double FMAs on registers, n iterations */
static inline double sx_fma_work(double n) { return 8 * 4 * 2 * n; }
static inline double sx_fma_footprint(double n) { (void)n; return 256; }

static const sx_kernel sx_kernels[] = {
    {"daxpy", "sx_daxpy", "y = a x + y, double, vectorised (-O3)", 32, sx_w_2n, sx_axpy_d_read, sx_axpy_d_write,
     sx_axpy_d_read},
    {"daxpy_scalar", "sx_daxpy_scalar", "y = a x + y, double, scalar", 32, sx_w_2n, sx_axpy_d_read,
     sx_axpy_d_write, sx_axpy_d_read},
    {"saxpy", "sx_saxpy", "y = a x + y, single precision, vectorised", 32, sx_w_2n, sx_axpy_s_read,
     sx_axpy_s_write, sx_axpy_s_read},
    {"triad", "sx_triad", "a = b + s c (STREAM triad), double", 32, sx_w_2n, sx_triad_read, sx_triad_write,
     sx_triad_footprint},
    {"dgemv", "sx_dgemv", "y = A x + y, column-major, double", 32, sx_w_2n2, sx_gemv_read, sx_gemv_write,
     sx_gemv_read},
    {"dgemm_naive", "sx_dgemm_naive", "C = A B + C, i-j-k loops, double", 32, sx_w_2n3, sx_gemm_read,
     sx_gemm_write, sx_gemm_read},
    {"dgemm_blocked", "sx_dgemm_blocked", "C = A B + C, 32 x 32 tiles, i-k-j inside, double", 32, sx_w_2n3,
     sx_gemm_read, sx_gemm_write, sx_gemm_read},
    {"fma", "sx_fma", "8 chains of 256-bit FMAs on registers (needs AVX2+FMA)", 1, sx_fma_work, 0, 0,
     sx_fma_footprint},
};

#define SX_N_KERNELS ((int)(sizeof sx_kernels / sizeof sx_kernels[0]))

/* Exit status of the kernels program when this CPU cannot run a kernel (fma without FMA). */
#define SX_EXIT_UNSUPPORTED 3

#endif
