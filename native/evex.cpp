#include "native/evex.hpp"

#include <cstring>

#include "native/encoding.hpp"
#include "native/opcode_flops.hpp"

namespace roofprof::native {

namespace {

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

// FP_ARITH_INST_RETIRED's operations among EVEX opcodes: the shared ones, and VRCP14/VRSQRT14
// (0f38 4c-4f) and AVX512ER's VRCP28/VRSQRT28 (0f38 ca-cd), 1 per lane as RCP and RSQRT.
std::optional<InsnFlops> evex_flops(unsigned map, uint8_t op, unsigned pp, unsigned bits, bool w) {
  if (map == 1) return arith_flops(op, pp, bits);
  if (map != 2 || pp != 1) return std::nullopt;
  if (auto f = fma3_flops(op, pp, bits, w)) return f;
  switch (op) {
    case 0x4c: case 0x4e: case 0xca: case 0xcc: return make_flops(w, true, bits, 1);
    case 0x4d: case 0x4f: case 0xcb: case 0xcd: return make_flops(w, false, bits, 1);
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<Insn> decode_evex(const uint8_t* code, size_t avail, uint64_t at) {
  const size_t p = read_prefixes(code, avail).length;
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
  const Encoding enc = read_encoding(code, length);
  in.flops = evex_flops(map, op, pp, enc.vector_bits, w);
  if (in.flops) in.flops->mask = enc.opmask;
  return in;
}

}  // namespace roofprof::native
