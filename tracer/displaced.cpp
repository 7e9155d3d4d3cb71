#include "tracer/displaced.hpp"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <cstring>
#include <limits>

#include "common/error.hpp"
#include "probes/entry_patch.hpp"
#include "probes/x86_decode.hpp"

namespace roofprof::tracer {

namespace {

using RegPtr = unsigned long long user_regs_struct::*;

// Capstone 64-bit GPR -> user_regs_struct field; index into this table is our register id.
struct RegEntry {
  x86_reg cs;
  RegPtr field;
};
constexpr RegEntry kRegs[] = {
    {X86_REG_RAX, &user_regs_struct::rax}, {X86_REG_RBX, &user_regs_struct::rbx},
    {X86_REG_RCX, &user_regs_struct::rcx}, {X86_REG_RDX, &user_regs_struct::rdx},
    {X86_REG_RSI, &user_regs_struct::rsi}, {X86_REG_RDI, &user_regs_struct::rdi},
    {X86_REG_RBP, &user_regs_struct::rbp}, {X86_REG_RSP, &user_regs_struct::rsp},
    {X86_REG_R8, &user_regs_struct::r8},   {X86_REG_R9, &user_regs_struct::r9},
    {X86_REG_R10, &user_regs_struct::r10}, {X86_REG_R11, &user_regs_struct::r11},
    {X86_REG_R12, &user_regs_struct::r12}, {X86_REG_R13, &user_regs_struct::r13},
    {X86_REG_R14, &user_regs_struct::r14}, {X86_REG_R15, &user_regs_struct::r15},
};

int reg_index(x86_reg r) {
  for (size_t i = 0; i < std::size(kRegs); ++i)
    if (kRegs[i].cs == r) return int(i);
  return -1;
}

}  // namespace

Displaced prepare_displaced(const uint8_t* code, size_t avail, TraceeAddr at, TraceeAddr slot) {
  const cs_insn* insn = probes::decode_x86(code, avail, at.value());
  if (!insn) {
    // endbr64 is not known to every capstone 4 build; it is a nop for our purposes.
    if (probes::is_endbr64(code, avail)) {
      Displaced d;
      d.mode = Displaced::Mode::Emulate;
      d.op = Displaced::Op::Nop;
      d.len = 4;
      d.text = "endbr64";
      return d;
    }
    throw UserError(fmt::format("cannot decode the instruction at {:#x}: is this address inside a function's code?",
                                at.value()));
  }
  Displaced d;
  d.len = uint8_t(insn->size);
  d.text = fmt::format("{} {}", insn->mnemonic, insn->op_str);
  const cs_x86& x = insn->detail->x86;

  // Trivial instructions: emulate, no single-step needed.
  switch (insn->id) {
    case X86_INS_NOP:
    case X86_INS_ENDBR64:
      d.mode = Displaced::Mode::Emulate;
      d.op = Displaced::Op::Nop;
      return d;
    case X86_INS_RET:
      if (x.op_count == 0 && insn->size == 1) {
        d.mode = Displaced::Mode::Emulate;
        d.op = Displaced::Op::Ret;
        return d;
      }
      break;
    case X86_INS_PUSH:
      if (x.op_count == 1 && x.operands[0].type == X86_OP_REG && x.operands[0].size == 8) {
        int r = reg_index(x.operands[0].reg);
        if (r >= 0 && kRegs[r].cs != X86_REG_RSP) {
          d.mode = Displaced::Mode::Emulate;
          d.op = Displaced::Op::Push;
          d.src_reg = r;
          return d;
        }
      }
      break;
    case X86_INS_MOV:
      if (x.op_count == 2 && x.operands[0].type == X86_OP_REG && x.operands[1].type == X86_OP_REG &&
          x.operands[0].size == 8 && x.operands[1].size == 8) {
        int dst = reg_index(x.operands[0].reg), src = reg_index(x.operands[1].reg);
        if (dst >= 0 && src >= 0) {
          d.mode = Displaced::Mode::Emulate;
          d.op = Displaced::Op::MovRegReg;
          d.dst_reg = dst;
          d.src_reg = src;
          return d;
        }
      }
      break;
    default:
      break;
  }

  // Everything else: copy to the slot, fix rip-relative displacements, single-step there.
  d.mode = Displaced::Mode::Step;
  std::memcpy(d.copy.data(), code, insn->size);
  d.relative_branch = probes::in_group(insn, CS_GRP_BRANCH_RELATIVE);
  d.is_call = probes::in_group(insn, CS_GRP_CALL);
  for (uint8_t i = 0; i < x.op_count; ++i) {
    const cs_x86_op& op = x.operands[i];
    if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP) {
      auto disp_at = probes::disp32_offset({code, insn->size}, x.encoding.disp_offset, op.mem.disp);
      if (!disp_at) throw UserError(fmt::format("cannot relocate '{}' at {:#x}", d.text, at.value()));
      int64_t disp = op.mem.disp;  // relative to the end of the instruction
      int64_t new_disp = disp + (at - slot);
      if (new_disp < std::numeric_limits<int32_t>::min() || new_disp > std::numeric_limits<int32_t>::max())
        throw UserError(fmt::format("cannot relocate '{}' at {:#x}: scratch slot too far away", d.text, at.value()));
      int32_t nd = int32_t(new_disp);
      std::memcpy(d.copy.data() + *disp_at, &nd, 4);
    }
  }
  return d;
}

bool emulate(const Displaced& d, user_regs_struct& regs, const TraceeMemory& mem, TraceeAddr at) {
  switch (d.op) {
    case Displaced::Op::Nop:
      regs.rip = at.value() + d.len;
      return true;
    case Displaced::Op::Push: {
      uint64_t v = regs.*kRegs[d.src_reg].field;
      regs.rsp -= 8;
      if (!mem.write(TraceeAddr(regs.rsp), &v, 8)) return false;
      regs.rip = at.value() + d.len;
      return true;
    }
    case Displaced::Op::Ret: {
      auto ret = mem.read_u64(TraceeAddr(regs.rsp));
      if (!ret) return false;
      regs.rsp += 8;
      regs.rip = *ret;
      return true;
    }
    case Displaced::Op::MovRegReg:
      regs.*kRegs[d.dst_reg].field = regs.*kRegs[d.src_reg].field;
      regs.rip = at.value() + d.len;
      return true;
    case Displaced::Op::None:
      break;
  }
  return false;
}

bool fixup_after_step(const Displaced& d, user_regs_struct& regs, const TraceeMemory& mem, TraceeAddr at,
                      TraceeAddr slot) {
  TraceeAddr rip(regs.rip);
  if (rip == slot + d.len || d.relative_branch) {
    // Fell through, or a relative branch whose target moved with the slot.
    regs.rip = (at + (rip - slot)).value();
  }
  if (d.is_call) {
    uint64_t ret = at.value() + d.len;
    if (!mem.write(TraceeAddr(regs.rsp), &ret, 8)) return false;
  }
  return true;
}

}  // namespace roofprof::tracer
