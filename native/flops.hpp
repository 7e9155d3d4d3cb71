#pragma once
// The flop rules of one decoded instruction (docs/native.md, "The rules").
#include <capstone/capstone.h>

#include <optional>

#include "native/counting.hpp"

namespace roofprof::native {

std::optional<InsnFlops> classify_flops(const cs_insn& insn);

}  // namespace roofprof::native
