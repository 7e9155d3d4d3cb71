#pragma once
// The selftest unit tests' lookup of a shipped kernel by name (selftest/kernel_table.h).
#include <stdexcept>
#include <string>

#include "selftest/kernel_table.h"

inline const sx_kernel& kernel(const std::string& name) {
  for (int i = 0; i < SX_N_KERNELS; ++i)
    if (name == sx_kernels[i].name) return sx_kernels[i];
  throw std::runtime_error("no kernel " + name);
}
