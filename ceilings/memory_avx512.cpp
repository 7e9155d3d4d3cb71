// 512-bit streaming kernels (built with -mavx512f, used only when CPUID reports avx512f).
#define ROOFPROF_VREG "zmm"
#define ROOFPROF_VBYTES "64"
#include "ceilings/memory_vex.hpp"

namespace roofprof::ceilings {
namespace {
constexpr MemoryKernel kTable[] = {ROOFPROF_VEX_MEMORY_ROWS(avx512)};
}  // namespace

const MemoryKernel* memory_table_avx512(int* count) {
  *count = int(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace roofprof::ceilings
