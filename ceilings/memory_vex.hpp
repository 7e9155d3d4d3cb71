#pragma once
// Streaming kernels in inline assembly for the VEX/EVEX files (memory_avx2.cpp with ymm,
// memory_avx512.cpp with zmm). Written in assembly so that each loop is exactly the intended
// loads and stores: 8 vectors per iteration, one offset register, no stack traffic.
// Included only by those two files; everything has internal linkage (see compute_body.hpp).
//
// Before including, define ROOFPROF_VREG ("ymm" or "zmm") and ROOFPROF_VBYTES ("32" or "64").
#include <cstdint>

#include "ceilings/kernels.hpp"

#define ROOFPROF_X8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define ROOFPROF_AT(i, base) #i "*" ROOFPROF_VBYTES "(%[" base "],%%rax)"
#define ROOFPROF_R(i) "%%" ROOFPROF_VREG #i

#define ROOFPROF_LOAD_B(i) "vmovapd " ROOFPROF_AT(i, "b") ", " ROOFPROF_R(i) "\n\t"
#define ROOFPROF_STORE_A(i) "vmovapd " ROOFPROF_R(i) ", " ROOFPROF_AT(i, "a") "\n\t"
#define ROOFPROF_STORE0_A(i) "vmovapd " ROOFPROF_R(0) ", " ROOFPROF_AT(i, "a") "\n\t"
#define ROOFPROF_NTSTORE0_A(i) "vmovntpd " ROOFPROF_R(0) ", " ROOFPROF_AT(i, "a") "\n\t"
#define ROOFPROF_TRIAD(i)                                                     \
  ROOFPROF_LOAD_B(i)                                                          \
  "vmulpd " ROOFPROF_AT(i, "c") ", " ROOFPROF_R(i) ", " ROOFPROF_R(i) "\n\t" \
  "vaddpd " ROOFPROF_AT(i, "d") ", " ROOFPROF_R(i) ", " ROOFPROF_R(i) "\n\t" ROOFPROF_STORE_A(i)

// passes x (offset 0 .. bytes step 8 vectors) { BODY }
#define ROOFPROF_STREAM(PRE, BODY, POST)                                                     \
  asm volatile(PRE                                                                           \
               "1:\n\t"                                                                      \
               "xor %%eax, %%eax\n\t"                                                        \
               ".p2align 5\n\t"                                                              \
               "2:\n\t" BODY "add $8*" ROOFPROF_VBYTES ", %%rax\n\t"                         \
               "cmp %[bytes], %%rax\n\t"                                                     \
               "jb 2b\n\t"                                                                   \
               "dec %[passes]\n\t"                                                           \
               "jnz 1b\n\t" POST "vzeroupper\n\t"                                            \
               : [passes] "+r"(passes)                                                       \
               : [a] "r"(a), [b] "r"(b), [c] "r"(c), [d] "r"(d), [bytes] "r"(n * 8),         \
                 [one] "m"(kOne)                                                             \
               : "rax", "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", \
                 "xmm7")

namespace roofprof::ceilings {
namespace {

constexpr double kOne = 1.0;

void vex_load(double* a, const double* b, const double* c, const double* d, uint64_t n,
              uint64_t passes) {
  ROOFPROF_STREAM("", ROOFPROF_X8(ROOFPROF_LOAD_B), "");
}
void vex_store(double* a, const double* b, const double* c, const double* d, uint64_t n,
               uint64_t passes) {
  ROOFPROF_STREAM("vbroadcastsd %[one], " ROOFPROF_R(0) "\n\t", ROOFPROF_X8(ROOFPROF_STORE0_A),
                  "");
}
void vex_nt_store(double* a, const double* b, const double* c, const double* d, uint64_t n,
                  uint64_t passes) {
  ROOFPROF_STREAM("vbroadcastsd %[one], " ROOFPROF_R(0) "\n\t", ROOFPROF_X8(ROOFPROF_NTSTORE0_A),
                  "sfence\n\t");
}
void vex_copy(double* a, const double* b, const double* c, const double* d, uint64_t n,
              uint64_t passes) {
  ROOFPROF_STREAM("", ROOFPROF_X8(ROOFPROF_LOAD_B) ROOFPROF_X8(ROOFPROF_STORE_A), "");
}
void vex_triad(double* a, const double* b, const double* c, const double* d, uint64_t n,
               uint64_t passes) {
  ROOFPROF_STREAM("", ROOFPROF_X8(ROOFPROF_TRIAD), "");
}

}  // namespace
}  // namespace roofprof::ceilings

// The five rows of a VEX memory table for `ISA`.
#define ROOFPROF_VEX_MEMORY_ROWS(ISA)                                                       \
  MemoryKernel{Isa::ISA, Kind::load, 1, 0, &vex_load},                                      \
      MemoryKernel{Isa::ISA, Kind::store, 0, 1, &vex_store},                                \
      MemoryKernel{Isa::ISA, Kind::nt_store, 0, 1, &vex_nt_store},                          \
      MemoryKernel{Isa::ISA, Kind::copy, 1, 1, &vex_copy},                                  \
      MemoryKernel{Isa::ISA, Kind::triad, 3, 1, &vex_triad}
