#include "native/flops.hpp"

#include <cstring>
#include <string_view>

#include "native/decode.hpp"
#include "native/encoding.hpp"

namespace roofprof::native {

namespace {

// The arithmetic of FP_ARITH_INST_RETIRED, longest names first where one is a prefix of another.
struct Op {
  const char* name;
  uint32_t per_lane;
};
constexpr Op kOps[] = {
    {"fmaddsub", 2}, {"fmsubadd", 2}, {"fnmadd", 2}, {"fnmsub", 2}, {"fmadd", 2}, {"fmsub", 2},
    {"addsub", 1},   {"hadd", 1},     {"hsub", 1},   {"rsqrt", 1},  {"sqrt", 1},  {"add", 1},
    {"sub", 1},      {"mul", 1},      {"div", 1},    {"min", 1},    {"max", 1},   {"rcp", 1},
    {"dp", 2},
};

// "vfmadd231pd" -> per lane 2, packed double. Digits between the operation and the type
// (132/213/231 operand orders, 14 and 28 for VRCP14/VRSQRT28) are allowed, nothing else.
std::optional<InsnFlops> sse_avx_flops(std::string_view m, const Encoding& enc) {
  if (!m.empty() && m[0] == 'v') m.remove_prefix(1);
  for (const Op& op : kOps) {
    const size_t n = std::strlen(op.name);
    if (m.substr(0, n) != op.name) continue;
    std::string_view rest = m.substr(n);
    while (!rest.empty() && rest[0] >= '0' && rest[0] <= '9') rest.remove_prefix(1);
    if (rest.size() != 2 || (rest[0] != 'p' && rest[0] != 's') || (rest[1] != 'd' && rest[1] != 's')) return std::nullopt;
    const bool dp = rest[1] == 'd', packed = rest[0] == 'p';
    InsnFlops f;
    f.per_lane = op.per_lane;
    f.mask = enc.kind == Encoding::kEvex ? enc.opmask : 0;
    if (!packed) {
      f.slot = dp ? RP_NATIVE_DP_SCALAR : RP_NATIVE_SP_SCALAR;
      return f;
    }
    const unsigned bits = enc.kind == Encoding::kLegacy ? 128 : enc.vector_bits;
    const int width = bits == 128 ? 1 : bits == 256 ? 2 : 3;  // slot offset from the scalar one
    f.slot = rp_native_slot((dp ? RP_NATIVE_DP_SCALAR : RP_NATIVE_SP_SCALAR) + width);
    f.lanes = bits / (dp ? 64 : 32);
    return f;
  }
  return std::nullopt;
}

// x87 (d8-df): the operations the emulation tool counts (docs/emulation.md), 1 each; FSINCOS
// computes a sine and a cosine: 2.
uint32_t x87_flops(const uint8_t* code, const Encoding& enc) {
  const uint8_t op = code[enc.opcode_at];
  if (op < 0xd8 || op > 0xdf || !enc.has_modrm_after) return 0;
  const uint8_t modrm = code[enc.opcode_at + 1];
  const bool reg_form = (modrm >> 6) == 3;
  const unsigned reg = (modrm >> 3) & 7;
  const bool arith_reg = reg == 0 || reg == 1 || reg >= 4;  // add mul sub subr div divr
  switch (op) {
    case 0xd8: case 0xdc: return arith_reg ? 1 : 0;
    case 0xde: return arith_reg ? 1 : 0;              // fiadd m16 ... ; faddp ... fdivp
    case 0xda: return !reg_form && arith_reg ? 1 : 0;  // fiadd m32 ...; register forms: fcmov, fucompp
    case 0xd9:
      switch (modrm) {
        case 0xf0: case 0xf1: case 0xf2: case 0xf3: case 0xf5: case 0xf8: case 0xf9: case 0xfa:
        case 0xfd: case 0xfe: case 0xff:
          return 1;  // f2xm1 fyl2x fptan fpatan fprem1 fprem fyl2xp1 fsqrt fscale fsin fcos
        case 0xfb:
          return 2;  // fsincos
        default:
          return 0;
      }
    default:
      return 0;
  }
}

}  // namespace

std::optional<InsnFlops> classify_flops(const cs_insn& insn) {
  const Encoding enc = read_encoding(insn.bytes, insn.size);
  if (enc.kind == Encoding::kLegacy && enc.opcode_at < insn.size) {
    if (uint32_t n = x87_flops(insn.bytes, enc)) {
      InsnFlops f;
      f.slot = RP_NATIVE_X87;
      f.lanes = n;
      return f;
    }
    const uint8_t op = insn.bytes[enc.opcode_at];
    if (op >= 0xd8 && op <= 0xdf) return std::nullopt;
  }
  return sse_avx_flops(insn.mnemonic, enc);
}

std::optional<InsnFlops> insn_flops(const uint8_t* code, size_t avail, uint64_t at) {
  auto insn = decode_insn(code, avail, at);
  return insn ? insn->flops : std::nullopt;
}

}  // namespace roofprof::native
