#pragma once
// What native counting (docs/native.md) patched in one module of a run: written by the tracer
// as the module is mapped (tracer/session_native.cpp), part of the run's outcome
// (supervisor::RunOutcome::native), turned into the result's native_counting by `run`.
#include <cstdint>
#include <string>
#include <vector>

#include "native/counting.hpp"

namespace roofprof::native {

struct PatchedModule {
  std::string path;
  size_t sites = 0;  // counting sites patched
  uint64_t fp_insns = 0;  // static instructions with flops in its functions
  uint64_t uncounted_fp_insns = 0;  // of them, in sites that could not be patched
  std::vector<Uncounted> uncounted;
  // Per place of `uncounted`: 1 once it ran, 0 while not, -1 when that could not be watched (a
  // one-shot breakpoint at its start tells, session_native.cpp).
  std::vector<int8_t> ran;
  std::string failure;  // why nothing of the module counts ("" when it does)
};

}  // namespace roofprof::native
