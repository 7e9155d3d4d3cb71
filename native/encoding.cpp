#include "native/encoding.hpp"

namespace roofprof::native {

Prefixes read_prefixes(const uint8_t* code, size_t avail) {
  Prefixes p;
  size_t i = 0;
  for (; i < avail && i < 14; ++i) {
    const uint8_t b = code[i];
    if ((b & 0xf0) == 0x40) {
      p.rex = b;
      continue;
    }
    if (b == 0x66) p.opsize = true;
    else if (b == 0xf3) p.rep = true, p.repne = false;
    else if (b == 0xf2) p.repne = true, p.rep = false;
    else if (b == 0x67) p.addr32 = true;
    else if (b != 0xf0 && b != 0x2e && b != 0x36 && b != 0x3e && b != 0x26 && b != 0x64 && b != 0x65) break;
    p.rex = 0;
  }
  p.length = i;
  return p;
}

namespace {

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
  const Prefixes p = read_prefixes(code, length);
  const size_t i = p.length;
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
    e.opcode_at = i;
  }
  e.has_modrm_after = e.opcode_at + 1 < length;
  return e;
}

}  // namespace roofprof::native
