#pragma once
// One instruction as the native analysis needs it (docs/native.md): its length, how it moves
// control, where its rip-relative displacement is, its flops and which arithmetic flags it reads
// and writes. Decoded once by Capstone (probes/x86_decode.hpp) and used by the plan and by emit.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "native/counting.hpp"

namespace roofprof::native {

enum class Flow : uint8_t {
  kNext,         // falls through to the next instruction
  kJmp,          // direct jmp rel8/rel32: target
  kJcc,          // direct jcc rel8/rel32: target, cc
  kIndirectJmp,  // jmp through a register or memory
  kRet,
  kCall,         // any call: never inside a site
  kUnmovable,    // loop/jrcxz/xbegin/...: relative in a way emit does not rewrite; never inside a site
};

// The six arithmetic flags CF PF AF ZF SF OF as bits.
inline constexpr uint8_t kAllArithFlags = 0x3f;

struct Insn {
  uint64_t address = 0;
  uint8_t length = 0;
  Flow flow = Flow::kNext;
  uint8_t cc = 0;             // kJcc: the condition (the low nibble of 7x / 0f 8x)
  uint8_t rip_disp_at = 0;    // offset of a rip-relative disp32 in the instruction, 0 none
  uint8_t flags_read = 0;     // kAllArithFlags bits it reads
  uint8_t flags_written = 0;  // bits it writes (set, reset, modified or left undefined)
  uint64_t target = 0;        // kJmp, kJcc, kCall with a direct target, kUnmovable's target; rip-relative operand's address
  uint64_t absolute_table = 0;  // a memory operand disp32(,%index,8) with no base: disp32 sign-extended (non-PIC jump tables)
  std::optional<InsnFlops> flops;
};

// The instruction at code[0..avail) at address `at`; nullopt when it does not decode. EVEX from
// its bytes (native/evex.hpp), then the opcode tables (native/table_decode.hpp), then Capstone.
std::optional<Insn> decode_insn(const uint8_t* code, size_t avail, uint64_t at);
// Capstone's decode alone (the tables' reference, tests/unit/native/decode_test.cpp).
std::optional<Insn> decode_with_capstone(const uint8_t* code, size_t avail, uint64_t at);

}  // namespace roofprof::native
