#include "native/decode.hpp"

#include <cstring>

#include "native/encoding.hpp"
#include "native/evex.hpp"
#include "native/flops.hpp"
#include "native/table_decode.hpp"
#include "probes/x86_decode.hpp"

namespace roofprof::native {

namespace {

// Capstone's eflags bits of each arithmetic flag, in our order CF PF AF ZF SF OF.
struct FlagBits {
  uint64_t write, read;
};
constexpr FlagBits kFlagBits[6] = {
    {X86_EFLAGS_MODIFY_CF | X86_EFLAGS_RESET_CF | X86_EFLAGS_SET_CF | X86_EFLAGS_UNDEFINED_CF,
     X86_EFLAGS_TEST_CF | X86_EFLAGS_PRIOR_CF},
    {X86_EFLAGS_MODIFY_PF | X86_EFLAGS_RESET_PF | X86_EFLAGS_SET_PF | X86_EFLAGS_UNDEFINED_PF,
     X86_EFLAGS_TEST_PF | X86_EFLAGS_PRIOR_PF},
    {X86_EFLAGS_MODIFY_AF | X86_EFLAGS_RESET_AF | X86_EFLAGS_SET_AF | X86_EFLAGS_UNDEFINED_AF,
     X86_EFLAGS_TEST_AF | X86_EFLAGS_PRIOR_AF},
    {X86_EFLAGS_MODIFY_ZF | X86_EFLAGS_RESET_ZF | X86_EFLAGS_SET_ZF | X86_EFLAGS_UNDEFINED_ZF,
     X86_EFLAGS_TEST_ZF | X86_EFLAGS_PRIOR_ZF},
    {X86_EFLAGS_MODIFY_SF | X86_EFLAGS_RESET_SF | X86_EFLAGS_SET_SF | X86_EFLAGS_UNDEFINED_SF,
     X86_EFLAGS_TEST_SF | X86_EFLAGS_PRIOR_SF},
    {X86_EFLAGS_MODIFY_OF | X86_EFLAGS_RESET_OF | X86_EFLAGS_SET_OF | X86_EFLAGS_UNDEFINED_OF,
     X86_EFLAGS_TEST_OF | X86_EFLAGS_PRIOR_OF},
};

// Instructions that read flags whatever Capstone's table says of them.
bool reads_flags_by_name(const cs_insn& in) {
  const char* m = in.mnemonic;
  if (std::strncmp(m, "set", 3) == 0 || std::strncmp(m, "cmov", 4) == 0 || std::strncmp(m, "fcmov", 5) == 0) return true;
  switch (in.id) {
    case X86_INS_ADC: case X86_INS_SBB: case X86_INS_PUSHF: case X86_INS_PUSHFQ: case X86_INS_LAHF:
    case X86_INS_RCL: case X86_INS_RCR: case X86_INS_ADCX: case X86_INS_ADOX:
      return true;
    default:
      return false;
  }
}

// x87 instructions: Capstone 4 puts the x87 status flags in the eflags field. Of EFLAGS, fcmov
// reads and fcomi/fucomi (db/df f0-f7) write.
bool x87_eflags(const cs_insn& in, Insn& out) {
  const Encoding enc = read_encoding(in.bytes, in.size);
  const uint8_t op = in.bytes[enc.opcode_at];
  if (op == 0x9b) return true;  // fwait
  if (op < 0xd8 || op > 0xdf) return false;
  const uint8_t modrm = enc.has_modrm_after ? in.bytes[enc.opcode_at + 1] : 0;
  if ((op == 0xda || op == 0xdb) && modrm >= 0xc0 && modrm < 0xe0) out.flags_read = kAllArithFlags;
  if ((op == 0xdb || op == 0xdf) && modrm >= 0xe8 && modrm < 0xf8) out.flags_written = kAllArithFlags;
  return true;
}

void read_flags(const cs_insn& in, Insn& out) {
  if (x87_eflags(in, out)) return;
  const uint64_t ef = in.detail->x86.eflags;
  for (int f = 0; f < 6; ++f) {
    if (ef & kFlagBits[f].write) out.flags_written |= uint8_t(1u << f);
    if (ef & kFlagBits[f].read) out.flags_read |= uint8_t(1u << f);
  }
  if (out.flow == Flow::kJcc || reads_flags_by_name(in)) out.flags_read = kAllArithFlags;
}

bool is_unmovable(unsigned id) {
  switch (id) {
    case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE: case X86_INS_JRCXZ: case X86_INS_JECXZ:
    case X86_INS_JCXZ: case X86_INS_XBEGIN:
      return true;
    default:
      return false;
  }
}

const cs_x86_op* immediate_operand(const cs_insn& in) {
  const cs_x86& x = in.detail->x86;
  return x.op_count == 1 && x.operands[0].type == X86_OP_IMM ? &x.operands[0] : nullptr;
}

void read_flow(const cs_insn& in, Insn& out) {
  using probes::in_group;
  const cs_x86_op* imm = immediate_operand(in);
  if (is_unmovable(in.id)) {
    out.flow = Flow::kUnmovable;
    if (imm) out.target = uint64_t(imm->imm);
  } else if (in_group(&in, CS_GRP_CALL)) {
    out.flow = Flow::kCall;
    if (imm) out.target = uint64_t(imm->imm);
  } else if (in_group(&in, CS_GRP_RET) || in_group(&in, CS_GRP_IRET)) {
    out.flow = Flow::kRet;
  } else if (in_group(&in, CS_GRP_JUMP)) {
    if (!imm) {
      out.flow = Flow::kIndirectJmp;
    } else {
      out.target = uint64_t(imm->imm);
      out.flow = in.id == X86_INS_JMP ? Flow::kJmp : Flow::kJcc;
      if (out.flow == Flow::kJcc) {
        const Encoding enc = read_encoding(in.bytes, in.size);
        const uint8_t op = in.bytes[enc.opcode_at];
        out.cc = op == 0x0f ? in.bytes[enc.opcode_at + 1] & 0xf : op & 0xf;
      }
    }
  }
}

void read_memory_operand(const cs_insn& in, Insn& out) {
  const cs_x86& x = in.detail->x86;
  for (uint8_t i = 0; i < x.op_count; ++i) {
    const cs_x86_op& op = x.operands[i];
    if (op.type != X86_OP_MEM) continue;
    if (op.mem.base == X86_REG_RIP) {
      out.rip_disp_at = x.encoding.disp_offset;
      out.target = in.address + in.size + uint64_t(op.mem.disp);
    } else if (op.mem.base == X86_REG_INVALID && op.mem.index != X86_REG_INVALID && op.mem.scale == 8) {
      out.absolute_table = uint64_t(op.mem.disp);
    }
  }
}

}  // namespace

std::optional<Insn> decode_insn(const uint8_t* code, size_t avail, uint64_t at) {
  if (auto evex = decode_evex(code, avail, at)) return evex;
  if (auto fast = decode_from_tables(code, avail, at)) return fast;
  return decode_with_capstone(code, avail, at);
}

std::optional<Insn> decode_with_capstone(const uint8_t* code, size_t avail, uint64_t at) {
  const cs_insn* in = probes::decode_x86(code, avail, at);
  if (!in) {
    if (!probes::is_endbr64(code, avail)) return std::nullopt;
    Insn endbr;
    endbr.address = at;
    endbr.length = 4;
    return endbr;
  }
  Insn out;
  out.address = at;
  out.length = uint8_t(in->size);
  read_flow(*in, out);
  if (out.flow == Flow::kNext || out.flow == Flow::kIndirectJmp) read_memory_operand(*in, out);
  read_flags(*in, out);
  out.flops = classify_flops(*in);
  return out;
}

}  // namespace roofprof::native
