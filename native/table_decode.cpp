#include "native/table_decode.hpp"

#include <cstring>

#include "native/encoding.hpp"
#include "native/opcode_flops.hpp"

namespace roofprof::native {

namespace {

constexpr uint8_t CF = 1, PF = 2, AF = 4, ZF = 8, SF = 16, OF = 32;

// The SSE type prefix: 0 ps, 1 pd (66), 2 ss (F3), 3 sd (F2).
unsigned sse_pp(const Prefixes& p) { return p.rep ? 2 : p.repne ? 3 : p.opsize ? 1 : 0; }

struct Operands {
  bool modrm = false;
  unsigned imm = 0;  // immediate bytes
};

// ---- flops ----------------------------------------------------------------------------------

std::optional<InsnFlops> map1_flops(uint8_t op, unsigned pp, unsigned bits) {
  if (auto f = arith_flops(op, pp, bits)) return f;
  return sse_only_flops(op, pp, bits);
}

// Map 3 (0f 3a xx) with 66: dpps, dppd; VEX map 3: also FMA4.
std::optional<InsnFlops> map3_flops(uint8_t op, unsigned pp, unsigned bits, bool vex) {
  if (pp != 1) return std::nullopt;
  if (op == 0x40 || op == 0x41) return make_flops(op == 0x41, true, bits, 2);
  if (!vex) return std::nullopt;
  if (op >= 0x5c && op <= 0x5f) return make_flops(op & 1, true, bits, 2);  // vfmaddsub, vfmsubadd
  if ((op >= 0x68 && op <= 0x6f) || (op >= 0x78 && op <= 0x7f)) return make_flops(op & 1, (op & 2) == 0, bits, 2);
  return std::nullopt;
}

// ---- one-byte map -------------------------------------------------------------------------

bool invalid_in_64(uint8_t op) {
  switch (op) {
    case 0x06: case 0x07: case 0x0e: case 0x16: case 0x17: case 0x1e: case 0x1f: case 0x27: case 0x2f:
    case 0x37: case 0x3f: case 0x60: case 0x61: case 0x82: case 0x9a: case 0xce: case 0xd4: case 0xd5:
    case 0xd6: case 0xea:
      return true;
    default:
      return false;
  }
}

bool map0_modrm(uint8_t op) {
  if (op < 0x40) return (op & 7) < 4;
  switch (op) {
    case 0x63: case 0x69: case 0x6b: case 0xc0: case 0xc1: case 0xc6: case 0xc7: case 0xd0: case 0xd1:
    case 0xd2: case 0xd3: case 0xf6: case 0xf7: case 0xfe: case 0xff:
      return true;
    default:
      return (op >= 0x80 && op <= 0x8f) || (op >= 0xd8 && op <= 0xdf);
  }
}

unsigned map0_imm(uint8_t op, const Prefixes& p, uint8_t modrm) {
  const unsigned z = p.opsize ? 2 : 4;
  if (op < 0x40) {
    if ((op & 7) == 4) return 1;
    if ((op & 7) == 5) return z;
    return 0;
  }
  if (op >= 0x70 && op <= 0x7f) return 1;
  if (op >= 0xb0 && op <= 0xb7) return 1;
  if (op >= 0xb8 && op <= 0xbf) return (p.rex & 8) ? 8 : z;
  if (op >= 0xe0 && op <= 0xe7) return 1;
  if (op >= 0xa0 && op <= 0xa3) return p.addr32 ? 4 : 8;
  switch (op) {
    case 0x6a: case 0x6b: case 0x80: case 0x83: case 0xa8: case 0xc0: case 0xc1: case 0xc6: case 0xcd:
    case 0xeb:
      return 1;
    case 0x68: case 0x69: case 0x81: case 0xa9: case 0xc7:
      return z;
    case 0xe8: case 0xe9:
      return 4;
    case 0xc2: case 0xca:
      return 2;
    case 0xc8:
      return 3;
    case 0xf6: return ((modrm >> 3) & 7) < 2 ? 1 : 0;
    case 0xf7: return ((modrm >> 3) & 7) < 2 ? z : 0;
    default:
      return 0;
  }
}

void map0_flags(uint8_t op, uint8_t modrm, Insn& in) {
  const unsigned reg = (modrm >> 3) & 7;
  if (op < 0x40 && (op & 7) < 6) {
    const unsigned alu = op >> 3;  // add or adc sbb and sub xor cmp
    if (alu == 2 || alu == 3) in.flags_read = CF;
    in.flags_written = kAllArithFlags;
    return;
  }
  switch (op) {
    case 0x80: case 0x81: case 0x83:
      if (reg == 2 || reg == 3) in.flags_read = CF;
      in.flags_written = kAllArithFlags;
      return;
    case 0x84: case 0x85: case 0xa8: case 0xa9: case 0x69: case 0x6b: case 0x9d:
      in.flags_written = kAllArithFlags;
      return;
    case 0x9e: in.flags_written = CF | PF | AF | ZF | SF; return;  // sahf
    case 0x9c: case 0x9f: case 0xf5: in.flags_read = kAllArithFlags; return;  // pushf lahf cmc
    case 0xf6: case 0xf7:
      if (reg != 2) in.flags_written = kAllArithFlags;  // test neg mul imul div idiv (not)
      return;
    case 0xfe: case 0xff:
      if (reg < 2) in.flags_written = PF | AF | ZF | SF | OF;  // inc dec
      return;
    case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:
      if (reg == 2 || reg == 3) in.flags_read = kAllArithFlags;  // rcl rcr; shifts by 0 leave the flags: no write
      return;
    case 0xda: case 0xdb: case 0xdf:
      if (op != 0xdf && (modrm >> 6) == 3 && reg < 4) in.flags_read = kAllArithFlags;  // fcmov
      if (op != 0xda && (modrm >> 6) == 3 && (reg == 5 || reg == 6)) in.flags_written = kAllArithFlags;  // fucomi, fcomi
      return;
    default:
      if (op >= 0x70 && op <= 0x7f) in.flags_read = kAllArithFlags;
      return;
  }
}

// ---- two-byte maps ------------------------------------------------------------------------

bool map1_no_modrm(uint8_t op) {
  switch (op) {
    case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b: case 0x0e: case 0x77: case 0xa0:
    case 0xa1: case 0xa2: case 0xa8: case 0xa9: case 0xaa:
      return true;
    default:
      return (op >= 0x30 && op <= 0x37) || (op >= 0x80 && op <= 0x8f) || (op >= 0xc8 && op <= 0xcf);
  }
}

bool map1_imm8(uint8_t op) {
  switch (op) {
    case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4: case 0xac: case 0xba: case 0xc2: case 0xc4:
    case 0xc5: case 0xc6:
      return true;
    default:
      return false;
  }
}

void map1_flags(uint8_t op, Insn& in) {
  if ((op >= 0x40 && op <= 0x4f) || (op >= 0x80 && op <= 0x9f)) in.flags_read = kAllArithFlags;
  else if (op == 0x2e || op == 0x2f || op == 0xaf || op == 0xb8)
    in.flags_written = kAllArithFlags;  // (u)comis, imul, popcnt
  else if (op == 0xbc || op == 0xbd)
    in.flags_written = PF | AF | ZF | SF | OF;  // bsf/tzcnt, bsr/lzcnt: CF not by bsf/bsr
}

// ModRM, SIB and displacement after the opcode at code[at]: their length; a rip-relative disp32's
// offset in rip_at (0 none); the offset of a disp32 with no base and an index scaled by 8 in
// table_at (0 none). nullopt when cut short.
std::optional<size_t> modrm_bytes(const uint8_t* code, size_t avail, size_t at, bool index_ext, size_t& rip_at,
                                  size_t& table_at) {
  if (at >= avail) return std::nullopt;
  const uint8_t modrm = code[at];
  const unsigned mod = modrm >> 6, rm = modrm & 7;
  size_t n = 1;
  if (mod == 3) return n;
  if (rm == 4) {
    if (at + 1 >= avail) return std::nullopt;
    const uint8_t sib = code[at + 1];
    n += 1;
    if (mod == 0 && (sib & 7) == 5) {
      if ((sib >> 6) == 3 && (((sib >> 3) & 7) != 4 || index_ext)) table_at = at + 2;  // 100 without REX.X: no index
      n += 4;
    }
  } else if (mod == 0 && rm == 5) {
    rip_at = at + 1;
    n += 4;
  }
  if (mod == 1) n += 1;
  if (mod == 2) n += 4;
  return n;
}

struct Shape {
  size_t opcode_at = 0;    // offset of the opcode byte
  bool modrm = false;
  unsigned imm = 0;
  bool index_ext = false;  // REX.X (VEX: not X̄): the SIB index's fourth bit
};

// Finishes an instruction of a given shape: length, rip-relative operand.
std::optional<Insn> finish(const uint8_t* code, size_t avail, uint64_t at, const Shape& s, bool addr32) {
  size_t rip_at = 0, table_at = 0, n = s.opcode_at + 1;
  if (s.modrm) {
    auto m = modrm_bytes(code, avail, n, s.index_ext, rip_at, table_at);
    if (!m) return std::nullopt;
    n += *m;
  }
  n += s.imm;
  if (n > avail || n > 15) return std::nullopt;
  if (rip_at && addr32) return std::nullopt;  // eip-relative: Capstone's
  Insn in;
  in.address = at;
  in.length = uint8_t(n);
  if (rip_at) {
    int32_t disp;
    std::memcpy(&disp, code + rip_at, 4);
    in.rip_disp_at = uint8_t(rip_at);
    in.target = at + n + int64_t(disp);
  }
  if (table_at) {
    int32_t disp;
    std::memcpy(&disp, code + table_at, 4);
    in.absolute_table = uint64_t(int64_t(disp));
  }
  return in;
}

int64_t rel(const uint8_t* code, size_t at, unsigned size) {
  if (size == 1) return int8_t(code[at]);
  int32_t v;
  std::memcpy(&v, code + at, 4);
  return v;
}

std::optional<Insn> decode_vex(const uint8_t* code, size_t avail, uint64_t at, const Prefixes& p) {
  const size_t i = p.length;
  if (p.rex || p.opsize || p.rep || p.repne || p.length > 1) return std::nullopt;  // not valid (or odd) before VEX
  unsigned map, pp, l;
  bool w = false;
  size_t op_at;
  if (code[i] == 0xc5) {
    if (i + 2 >= avail) return std::nullopt;
    map = 1, pp = code[i + 1] & 3, l = (code[i + 1] >> 2) & 1, op_at = i + 2;
  } else {
    if (i + 3 >= avail) return std::nullopt;
    map = code[i + 1] & 0x1f, w = code[i + 2] >> 7, pp = code[i + 2] & 3, l = (code[i + 2] >> 2) & 1, op_at = i + 3;
    if (map < 1 || map > 3) return std::nullopt;
  }
  const uint8_t op = code[op_at];
  Shape s{op_at, !(map == 1 && op == 0x77), map == 3 || (map == 1 && map1_imm8(op) && op != 0xa4 && op != 0xac && op != 0xba),
          code[i] == 0xc4 && !(code[i + 1] & 0x40)};
  auto in = finish(code, avail, at, s, p.addr32);
  if (!in) return std::nullopt;
  const unsigned bits = l ? 256 : 128;
  if (map == 1) in->flops = map1_flops(op, pp, bits);
  else if (map == 2) in->flops = fma3_flops(op, pp, bits, w);
  else in->flops = map3_flops(op, pp, bits, true);
  if (map == 1 && (op == 0x2e || op == 0x2f)) in->flags_written = kAllArithFlags;
  return in;
}

std::optional<Insn> decode_0f(const uint8_t* code, size_t avail, uint64_t at, const Prefixes& p) {
  const size_t i = p.length;
  if (i + 1 >= avail) return std::nullopt;
  const uint8_t op = code[i + 1];
  if (op == 0x0f) return std::nullopt;  // 3DNow!
  if (op == 0x38 || op == 0x3a) {
    if (i + 2 >= avail) return std::nullopt;
    const uint8_t op3 = code[i + 2];
    auto in = finish(code, avail, at, Shape{i + 2, true, op == 0x3a ? 1u : 0u, bool(p.rex & 2)}, p.addr32);
    if (!in) return std::nullopt;
    if (op == 0x3a) {
      in->flops = map3_flops(op3, sse_pp(p), 128, false);
      if (op3 >= 0x60 && op3 <= 0x63) in->flags_written = kAllArithFlags;  // pcmp[ei]str[im]
    } else {
      if (op3 == 0x17) in->flags_written = kAllArithFlags;                  // ptest
      if (op3 == 0xf6 && (p.opsize || p.rep)) in->flags_read = kAllArithFlags;  // adcx, adox
    }
    return in;
  }
  auto in = finish(code, avail, at,
                   Shape{i + 1, !map1_no_modrm(op), (op >= 0x80 && op <= 0x8f) ? 4u : map1_imm8(op) ? 1u : 0u, bool(p.rex & 2)},
                   p.addr32);
  if (!in) return std::nullopt;
  if (op >= 0x80 && op <= 0x8f) {
    if (p.opsize) return std::nullopt;
    in->flow = Flow::kJcc;
    in->cc = op & 0xf;
    in->target = at + in->length + rel(code, in->length - 4, 4);
  }
  in->flops = map1_flops(op, sse_pp(p), 128);
  map1_flags(op, *in);
  return in;
}

std::optional<Insn> decode_map0(const uint8_t* code, size_t avail, uint64_t at, const Prefixes& p) {
  const size_t i = p.length;
  const uint8_t op = code[i];
  if (invalid_in_64(op)) return std::nullopt;
  const bool has_modrm = map0_modrm(op);
  if (has_modrm && i + 1 >= avail) return std::nullopt;
  const uint8_t modrm = has_modrm ? code[i + 1] : 0;
  const unsigned reg = (modrm >> 3) & 7;
  if (op == 0xc7 && modrm == 0xf8) return std::nullopt;  // xbegin
  if (op == 0x8f && reg != 0) return std::nullopt;       // XOP
  auto in = finish(code, avail, at, Shape{i, has_modrm, map0_imm(op, p, modrm), bool(p.rex & 2)}, p.addr32);
  if (!in) return std::nullopt;
  const bool branch = (op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3) || op == 0xe8 || op == 0xe9 || op == 0xeb;
  if (branch && p.opsize) return std::nullopt;  // 16-bit targets
  if (branch) in->target = at + in->length + rel(code, in->length - (op == 0xe8 || op == 0xe9 ? 4 : 1), op == 0xe8 || op == 0xe9 ? 4 : 1);
  if (op >= 0x70 && op <= 0x7f) {
    in->flow = Flow::kJcc;
    in->cc = op & 0xf;
  } else if (op >= 0xe0 && op <= 0xe3) {
    in->flow = Flow::kUnmovable;
    if (op < 0xe2) in->flags_read = ZF;  // loopne, loope
  } else if (op == 0xe8) {
    in->flow = Flow::kCall;
  } else if (op == 0xe9 || op == 0xeb) {
    in->flow = Flow::kJmp;
  } else if (op == 0xc3 || op == 0xc2 || op == 0xcb || op == 0xca || op == 0xcf) {
    in->flow = Flow::kRet;
  } else if (op == 0xff && (reg == 2 || reg == 3)) {
    in->flow = Flow::kCall;
  } else if (op == 0xff && (reg == 4 || reg == 5)) {
    in->flow = Flow::kIndirectJmp;
  }
  if (op >= 0xd8 && op <= 0xdf) in->flops = x87_flops(op, modrm);
  map0_flags(op, modrm, *in);
  if (in->flow != Flow::kNext && in->flow != Flow::kIndirectJmp && op == 0xff) {
    in->rip_disp_at = 0;  // an indirect call's slot is no operand a trampoline relocates: calls are in no site
    in->target = 0;
  }
  return in;
}

}  // namespace

std::optional<Insn> decode_from_tables(const uint8_t* code, size_t avail, uint64_t at) {
  const Prefixes p = read_prefixes(code, avail);
  if (p.length >= avail) return std::nullopt;
  const uint8_t op = code[p.length];
  if (op == 0x62) return std::nullopt;  // EVEX: native/evex.cpp
  if (op == 0xc4 || op == 0xc5) return decode_vex(code, avail, at, p);
  if (op == 0x0f) return decode_0f(code, avail, at, p);
  return decode_map0(code, avail, at, p);
}

}  // namespace roofprof::native
