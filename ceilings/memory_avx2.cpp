// 256-bit streaming kernels (built with -mavx2, used only when CPUID reports avx2 and fma).
#define ROOFPROF_VREG "ymm"
#define ROOFPROF_VBYTES "32"
#include "ceilings/memory_vex.hpp"

namespace roofprof::ceilings {
namespace {
constexpr MemoryKernel kTable[] = {ROOFPROF_VEX_MEMORY_ROWS(avx2)};
}  // namespace

const MemoryKernel* memory_table_avx2(int* count) {
  *count = int(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace roofprof::ceilings
