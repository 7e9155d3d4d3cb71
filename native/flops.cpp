#include "native/flops.hpp"

#include <cstring>
#include <string_view>

#include "native/decode.hpp"
#include "native/encoding.hpp"
#include "native/opcode_flops.hpp"

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

}  // namespace

std::optional<InsnFlops> classify_flops(const cs_insn& insn) {
  const Encoding enc = read_encoding(insn.bytes, insn.size);
  if (enc.kind == Encoding::kLegacy && enc.opcode_at < insn.size) {
    const uint8_t op = insn.bytes[enc.opcode_at];
    if (op >= 0xd8 && op <= 0xdf) return enc.has_modrm_after ? x87_flops(op, insn.bytes[enc.opcode_at + 1]) : std::nullopt;
  }
  return sse_avx_flops(insn.mnemonic, enc);
}

std::optional<InsnFlops> insn_flops(const uint8_t* code, size_t avail, uint64_t at) {
  auto insn = decode_insn(code, avail, at);
  return insn ? insn->flops : std::nullopt;
}

}  // namespace roofprof::native
