#pragma once
// What the prefixes of an x86-64 instruction say about its vector width and opmask, read from
// the bytes (Capstone 4's operand sizes for EVEX forms are not to be trusted; docs/native.md).
#include <cstddef>
#include <cstdint>

namespace roofprof::native {

// The legacy prefixes and the REX of an instruction (a REX counts only right before the opcode:
// one followed by another prefix is ignored).
struct Prefixes {
  bool opsize = false, rep = false, repne = false, addr32 = false;
  uint8_t rex = 0;
  size_t length = 0;  // of all of them: the offset of the opcode (or VEX/EVEX prefix)
};
Prefixes read_prefixes(const uint8_t* code, size_t avail);

struct Encoding {
  enum Kind : uint8_t { kLegacy, kVex, kEvex } kind = kLegacy;
  unsigned vector_bits = 128;  // VEX.L / EVEX.L'L (EVEX.b with a register operand: 512, rounding control)
  int opmask = 0;              // EVEX.aaa: k1-k7, 0 none
  size_t opcode_at = 0;        // offset of the opcode byte (after the legacy, REX, VEX or EVEX prefix)
  bool has_modrm_after = false;  // there is a byte after the opcode (its ModRM, for x87)
};

// Reads the prefixes of the instruction at code[0..length).
Encoding read_encoding(const uint8_t* code, size_t length);

}  // namespace roofprof::native
