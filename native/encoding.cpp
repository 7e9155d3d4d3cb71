#include "native/encoding.hpp"

namespace roofprof::native {

namespace {

bool is_legacy_prefix(uint8_t b) {
  switch (b) {
    case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64:
    case 0x65: case 0x66: case 0x67:
      return true;
    default:
      return false;
  }
}

void read_evex(const uint8_t* p, size_t left, Encoding& e) {
  e.kind = Encoding::kEvex;
  if (left < 6) return;
  const uint8_t p2 = p[3], modrm = p[5];
  const bool broadcast_or_rounding = (p2 >> 4) & 1;
  const unsigned ll = (p2 >> 5) & 3;
  e.opmask = p2 & 7;
  // EVEX.b on a register-only form selects embedded rounding: the vector length is then 512.
  e.vector_bits = (broadcast_or_rounding && (modrm >> 6) == 3) ? 512 : 128u << ll;
}

}  // namespace

Encoding read_encoding(const uint8_t* code, size_t length) {
  Encoding e;
  size_t i = 0;
  size_t rex = 0;  // a REX counts only right before the opcode
  while (i < length && (is_legacy_prefix(code[i]) || (code[i] & 0xf0) == 0x40)) rex = (code[i++] & 0xf0) == 0x40;
  if (i >= length) return e;
  if (code[i] == 0x62) {
    read_evex(code + i, length - i, e);
    e.opcode_at = i + 4;
  } else if (code[i] == 0xc5 && i + 2 < length) {
    e.kind = Encoding::kVex;
    e.vector_bits = (code[i + 1] & 4) ? 256 : 128;
    e.opcode_at = i + 2;
  } else if (code[i] == 0xc4 && i + 3 < length) {
    e.kind = Encoding::kVex;
    e.vector_bits = (code[i + 2] & 4) ? 256 : 128;
    e.opcode_at = i + 3;
  } else {
    (void)rex;
    e.opcode_at = i;
  }
  e.has_modrm_after = e.opcode_at + 1 < length;
  return e;
}

}  // namespace roofprof::native
