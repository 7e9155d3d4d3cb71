#pragma once
// Legacy and VEX instructions decoded from opcode tables (docs/native.md, "Decoding"): the
// length, control flow, rip-relative operand, flops and the flags that plan_module needs, at a
// few nanoseconds an instruction where Capstone takes hundreds. Instructions outside its tables
// (3DNow!, XOP, xbegin, far and 16-bit branches, opcodes invalid in 64-bit mode, eip-relative
// operands) give nullopt, and decode_insn asks Capstone.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "native/decode.hpp"

namespace roofprof::native {

std::optional<Insn> decode_from_tables(const uint8_t* code, size_t avail, uint64_t at);

}  // namespace roofprof::native
