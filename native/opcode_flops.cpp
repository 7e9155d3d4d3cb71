#include "native/opcode_flops.hpp"

namespace roofprof::native {

InsnFlops make_flops(bool dp, bool packed, unsigned bits, uint32_t per_lane) {
  InsnFlops f;
  f.per_lane = per_lane;
  const rp_native_slot scalar = dp ? RP_NATIVE_DP_SCALAR : RP_NATIVE_SP_SCALAR;
  if (!packed) {
    f.slot = scalar;
    return f;
  }
  f.slot = rp_native_slot(scalar + (bits == 128 ? 1 : bits == 256 ? 2 : 3));
  f.lanes = bits / (dp ? 64 : 32);
  return f;
}

std::optional<InsnFlops> arith_flops(uint8_t op, unsigned pp, unsigned bits) {
  switch (op) {
    case 0x51: case 0x58: case 0x59: case 0x5c: case 0x5d: case 0x5e: case 0x5f:
      return make_flops(pp == 1 || pp == 3, pp < 2, bits, 1);
    default:
      return std::nullopt;
  }
}

std::optional<InsnFlops> sse_only_flops(uint8_t op, unsigned pp, unsigned bits) {
  switch (op) {
    case 0x52: case 0x53:
      if (pp == 0 || pp == 2) return make_flops(false, pp == 0, bits, 1);
      return std::nullopt;
    case 0x7c: case 0x7d: case 0xd0:
      if (pp == 1 || pp == 3) return make_flops(pp == 1, true, bits, 1);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<InsnFlops> fma3_flops(uint8_t op, unsigned pp, unsigned bits, bool w) {
  if (pp != 1) return std::nullopt;
  const bool fma = (op >= 0x96 && op <= 0x9f) || (op >= 0xa6 && op <= 0xaf) || (op >= 0xb6 && op <= 0xbf);
  if (!fma) return std::nullopt;
  // x6 x7 x8 xa xc xe packed; x9 xb xd xf scalar
  return make_flops(w, (op & 0xf) < 9 || (op & 1) == 0, bits, 2);
}

// The emulation tool's x87 operations, 1 each; FSINCOS computes a sine and a cosine: 2.
std::optional<InsnFlops> x87_flops(uint8_t op, uint8_t modrm) {
  const bool reg_form = (modrm >> 6) == 3;
  const unsigned reg = (modrm >> 3) & 7;
  const bool arith = reg == 0 || reg == 1 || reg >= 4;  // add mul sub subr div divr
  uint32_t n = 0;
  if (op == 0xd8 || op == 0xdc || op == 0xde) n = arith;  // (fi)add ... (fi)divr, the p forms
  else if (op == 0xda) n = !reg_form && arith;           // fiadd m32 ...; register forms: fcmov, fucompp
  else if (op == 0xd9) {
    switch (modrm) {
      case 0xf0: case 0xf1: case 0xf2: case 0xf3: case 0xf5: case 0xf8: case 0xf9: case 0xfa: case 0xfd: case 0xfe:
      case 0xff:
        n = 1;  // f2xm1 fyl2x fptan fpatan fprem1 fprem fyl2xp1 fsqrt fscale fsin fcos
        break;
      case 0xfb:
        n = 2;  // fsincos
        break;
      default:
        break;
    }
  }
  if (!n) return std::nullopt;
  InsnFlops f;
  f.slot = RP_NATIVE_X87;
  f.lanes = n;
  return f;
}

}  // namespace roofprof::native
