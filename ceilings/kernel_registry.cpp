#include "ceilings/kernel_registry.hpp"

#include "ceilings/machine.hpp"

namespace roofprof::ceilings {
namespace {

template <class K>
void append(std::vector<K>& out, const K* (*table)(int*)) {
  int n = 0;
  const K* rows = table(&n);
  out.insert(out.end(), rows, rows + n);
}

}  // namespace

std::vector<ComputeKernel> compute_kernels() {
  std::vector<ComputeKernel> out;
  append(out, compute_table_sse2);
  if (supports_fma(Isa::scalar)) append(out, compute_table_fma128);
  if (supports(Isa::avx2)) append(out, compute_table_avx2);
  if (supports(Isa::avx512)) append(out, compute_table_avx512);
  return out;
}

std::vector<MemoryKernel> memory_kernels() {
  std::vector<MemoryKernel> out;
  if (supports(Isa::avx512)) append(out, memory_table_avx512);
  else if (supports(Isa::avx2)) append(out, memory_table_avx2);
  else append(out, memory_table_sse2);
  return out;
}

}  // namespace roofprof::ceilings
