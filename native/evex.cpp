#include "native/evex.hpp"

#include <cstring>

#include "native/encoding.hpp"

namespace roofprof::native {

namespace {

size_t legacy_prefixes(const uint8_t* code, size_t avail) {
  size_t i = 0;
  while (i < avail && i < 14) {
    switch (code[i]) {
      case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64:
      case 0x65: case 0x66: case 0x67:
        ++i;
        continue;
      default:
        return i;
    }
  }
  return i;
}

bool has_imm8(unsigned map, uint8_t op) {
  if (map == 3) return true;
  if (map == 1) return (op >= 0x70 && op <= 0x73) || op == 0xc2 || op == 0xc4 || op == 0xc5 || op == 0xc6;
  return false;
}

// ModRM, SIB and displacement: their length, and where a rip-relative disp32 is (0 none).
struct Addressing {
  size_t length = 0;
  size_t rip_disp_at = 0;
};
std::optional<Addressing> addressing(const uint8_t* code, size_t avail, size_t modrm_at) {
  if (modrm_at >= avail) return std::nullopt;
  const uint8_t modrm = code[modrm_at];
  const unsigned mod = modrm >> 6, rm = modrm & 7;
  Addressing a{1, 0};
  if (mod == 3) return a;
  if (rm == 4) {
    if (modrm_at + 1 >= avail) return std::nullopt;
    const uint8_t sib = code[modrm_at + 1];
    a.length += 1;
    if (mod == 0 && (sib & 7) == 5) a.length += 4;
  } else if (mod == 0 && rm == 5) {
    a.rip_disp_at = modrm_at + 1;
    a.length += 4;
  }
  if (mod == 1) a.length += 1;
  if (mod == 2) a.length += 4;
  return a;
}

// FP_ARITH_INST_RETIRED's operations among EVEX opcodes: per lane, and whether packed.
struct EvexOp {
  uint32_t per_lane = 0;  // 0: no flops
  bool packed = false;
  bool dp = false;
};
EvexOp evex_op(unsigned map, unsigned pp, bool w, uint8_t op) {
  EvexOp r;
  if (map == 1) {
    switch (op) {
      case 0x51: case 0x58: case 0x59: case 0x5c: case 0x5d: case 0x5e: case 0x5f: break;
      default: return r;
    }
    r.per_lane = 1;
    r.packed = pp == 0 || pp == 1;
    r.dp = pp == 1 || pp == 3;
    return r;
  }
  if (map != 2 || pp != 1) return r;
  r.dp = w;
  const bool fma = (op >= 0x96 && op <= 0x9f) || (op >= 0xa6 && op <= 0xaf) || (op >= 0xb6 && op <= 0xbf);
  if (fma) {
    r.per_lane = 2;
    r.packed = (op & 0xf) < 9 || (op & 1) == 0;  // x6 x7 x8 xa xc xe packed; x9 xb xd xf scalar
    return r;
  }
  switch (op) {
    case 0x4c: case 0x4e: case 0xca: case 0xcc: r.per_lane = 1; r.packed = true; return r;   // vrcp14/vrsqrt14/vrcp28/vrsqrt28 p*
    case 0x4d: case 0x4f: case 0xcb: case 0xcd: r.per_lane = 1; r.packed = false; return r;  // s*
    default: return r;
  }
}

}  // namespace

std::optional<Insn> decode_evex(const uint8_t* code, size_t avail, uint64_t at) {
  const size_t p = legacy_prefixes(code, avail);
  if (p + 6 > avail || code[p] != 0x62) return std::nullopt;
  const uint8_t p0 = code[p + 1], p1 = code[p + 2];
  const unsigned map = p0 & 7, pp = p1 & 3;
  const bool w = p1 >> 7;
  const uint8_t op = code[p + 4];
  auto addr = addressing(code, avail, p + 5);
  if (!addr) return std::nullopt;
  const size_t length = p + 5 + addr->length + (has_imm8(map, op) ? 1 : 0);
  if (length > avail || length > 15) return std::nullopt;
  Insn in;
  in.address = at;
  in.length = uint8_t(length);
  if (addr->rip_disp_at) {
    int32_t disp;
    std::memcpy(&disp, code + addr->rip_disp_at, 4);
    in.rip_disp_at = uint8_t(addr->rip_disp_at);
    in.target = at + length + int64_t(disp);
  }
  if (map == 1 && (op == 0x2e || op == 0x2f)) in.flags_written = kAllArithFlags;  // vucomis*, vcomis*
  const EvexOp e = evex_op(map, pp, w, op);
  if (e.per_lane) {
    const Encoding enc = read_encoding(code, length);
    InsnFlops f;
    f.per_lane = e.per_lane;
    f.mask = enc.opmask;
    const rp_native_slot scalar = e.dp ? RP_NATIVE_DP_SCALAR : RP_NATIVE_SP_SCALAR;
    if (e.packed) {
      const int width = enc.vector_bits == 128 ? 1 : enc.vector_bits == 256 ? 2 : 3;
      f.slot = rp_native_slot(scalar + width);
      f.lanes = enc.vector_bits / (e.dp ? 64 : 32);
    } else {
      f.slot = scalar;
    }
    in.flops = f;
  }
  return in;
}

}  // namespace roofprof::native
