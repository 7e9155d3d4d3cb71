// 128-bit streaming kernels, legacy SSE2 encoding (the x86-64 baseline). Same loop shape as
// memory_vex.hpp: 8 vectors per iteration in inline assembly.
#include <cstdint>

#include "ceilings/kernels.hpp"

#define ROOFPROF_X8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define ROOFPROF_AT(i, base) #i "*16(%[" base "],%%rax)"
#define ROOFPROF_R(i) "%%xmm" #i

#define ROOFPROF_LOAD_B(i) "movapd " ROOFPROF_AT(i, "b") ", " ROOFPROF_R(i) "\n\t"
#define ROOFPROF_STORE_A(i) "movapd " ROOFPROF_R(i) ", " ROOFPROF_AT(i, "a") "\n\t"
#define ROOFPROF_STORE0_A(i) "movapd " ROOFPROF_R(0) ", " ROOFPROF_AT(i, "a") "\n\t"
#define ROOFPROF_NTSTORE0_A(i) "movntpd " ROOFPROF_R(0) ", " ROOFPROF_AT(i, "a") "\n\t"
#define ROOFPROF_TRIAD(i)                                   \
  ROOFPROF_LOAD_B(i)                                        \
  "mulpd " ROOFPROF_AT(i, "c") ", " ROOFPROF_R(i) "\n\t"    \
  "addpd " ROOFPROF_AT(i, "d") ", " ROOFPROF_R(i) "\n\t" ROOFPROF_STORE_A(i)

#define ROOFPROF_STREAM(PRE, BODY, POST)                                                     \
  asm volatile(PRE                                                                           \
               "1:\n\t"                                                                      \
               "xor %%eax, %%eax\n\t"                                                        \
               ".p2align 5\n\t"                                                              \
               "2:\n\t" BODY "add $128, %%rax\n\t"                                           \
               "cmp %[bytes], %%rax\n\t"                                                     \
               "jb 2b\n\t"                                                                   \
               "dec %[passes]\n\t"                                                           \
               "jnz 1b\n\t" POST                                                             \
               : [passes] "+r"(passes)                                                       \
               : [a] "r"(a), [b] "r"(b), [c] "r"(c), [d] "r"(d), [bytes] "r"(n * 8),         \
                 [one] "m"(kOne)                                                             \
               : "rax", "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", \
                 "xmm7")

#define ROOFPROF_SPLAT_ONE "movsd %[one], %%xmm0\n\tunpcklpd %%xmm0, %%xmm0\n\t"

namespace roofprof::ceilings {
namespace {

constexpr double kOne = 1.0;

void sse_load(double* a, const double* b, const double* c, const double* d, uint64_t n,
              uint64_t passes) {
  ROOFPROF_STREAM("", ROOFPROF_X8(ROOFPROF_LOAD_B), "");
}
void sse_store(double* a, const double* b, const double* c, const double* d, uint64_t n,
               uint64_t passes) {
  ROOFPROF_STREAM(ROOFPROF_SPLAT_ONE, ROOFPROF_X8(ROOFPROF_STORE0_A), "");
}
void sse_nt_store(double* a, const double* b, const double* c, const double* d, uint64_t n,
                  uint64_t passes) {
  ROOFPROF_STREAM(ROOFPROF_SPLAT_ONE, ROOFPROF_X8(ROOFPROF_NTSTORE0_A), "sfence\n\t");
}
void sse_copy(double* a, const double* b, const double* c, const double* d, uint64_t n,
              uint64_t passes) {
  ROOFPROF_STREAM("", ROOFPROF_X8(ROOFPROF_LOAD_B) ROOFPROF_X8(ROOFPROF_STORE_A), "");
}
void sse_triad(double* a, const double* b, const double* c, const double* d, uint64_t n,
               uint64_t passes) {
  ROOFPROF_STREAM("", ROOFPROF_X8(ROOFPROF_TRIAD), "");
}

constexpr MemoryKernel kTable[] = {
    {Isa::sse, Kind::load, 1, 0, &sse_load},     {Isa::sse, Kind::store, 0, 1, &sse_store},
    {Isa::sse, Kind::nt_store, 0, 1, &sse_nt_store}, {Isa::sse, Kind::copy, 1, 1, &sse_copy},
    {Isa::sse, Kind::triad, 3, 1, &sse_triad},
};

}  // namespace

const MemoryKernel* memory_table_sse2(int* count) {
  *count = int(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace roofprof::ceilings
