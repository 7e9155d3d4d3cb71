#include "probes/entry_patch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <emmintrin.h>
#include <limits>

#include "common/error.hpp"
#include "preload/patch_format.h"
#include "probes/x86_decode.hpp"

namespace roofprof::probes {

std::vector<uint64_t> branch_targets(std::span<const uint8_t> code, uint64_t entry) {
  std::vector<uint64_t> out;
  size_t off = 0;
  while (off < code.size()) {
    if (is_endbr64(code.data() + off, code.size() - off)) {
      off += 4;
      continue;
    }
    const cs_insn* insn = decode_x86(code.data() + off, code.size() - off, entry + off);
    if (!insn) {
      ++off;  // data or an unknown instruction: resynchronise
      continue;
    }
    if (in_group(insn, CS_GRP_BRANCH_RELATIVE)) {
      const cs_x86& x = insn->detail->x86;
      for (uint8_t i = 0; i < x.op_count; ++i)
        if (x.operands[i].type == X86_OP_IMM) out.push_back(uint64_t(x.operands[i].imm));
    }
    off += insn->size;
  }
  return out;
}

std::optional<size_t> disp32_offset(std::span<const uint8_t> insn, size_t reported, int64_t disp) {
  auto holds = [&](size_t at) {
    if (at == 0 || at + 4 > insn.size()) return false;
    int32_t d;
    std::memcpy(&d, insn.data() + at, 4);
    return int64_t(d) == disp;
  };
  if (holds(reported)) return reported;
  for (size_t at = 1; at + 4 <= insn.size(); ++at)
    if (holds(at)) return at;
  return std::nullopt;
}

namespace {

// The opcode of a rel32 branch at byte i of code, in 16-byte blocks with SSE2 (every x86-64 has
// it): bit k of the mask is set when code[i + k] is e8 or e9, or 0f followed by 80-8f. A byte
// loop mispredicts on the many e8 and 0f bytes of real code (4-7 ms for FFTW's 1.8 MB of code,
// against well under 1 ms this way).
unsigned branch_opcodes(const uint8_t* at) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 1));
  const __m128i call_or_jmp = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(char(0xfe))), _mm_set1_epi8(char(0xe8)));
  const __m128i jcc = _mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x0f)),
                                    _mm_cmpeq_epi8(_mm_and_si128(next, _mm_set1_epi8(char(0xf0))),
                                                   _mm_set1_epi8(char(0x80))));
  return unsigned(_mm_movemask_epi8(_mm_or_si128(call_or_jmp, jcc)));
}

}  // namespace

std::vector<uint64_t> rel32_targets(std::span<const uint8_t> code, uint64_t addr, uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> out;
  auto rel_at = [&](size_t i) {
    int32_t r;
    std::memcpy(&r, code.data() + i, 4);
    return r;
  };
  auto at = [&](size_t i) {  // the branch whose opcode is at i, if one fits and is in range
    const uint8_t b = code[i];
    uint64_t target;
    if (b == 0xe8 || b == 0xe9) {
      if (i + 5 > code.size()) return;
      target = addr + i + 5 + uint64_t(int64_t(rel_at(i + 1)));
    } else if (b == 0x0f && i + 6 <= code.size() && code[i + 1] >= 0x80 && code[i + 1] <= 0x8f) {
      target = addr + i + 6 + uint64_t(int64_t(rel_at(i + 2)));
    } else {
      return;
    }
    if (target >= lo && target < hi) out.push_back(target);
  };
  size_t i = 0;
  for (; i + 17 <= code.size(); i += 16)  // blocks whose next byte can be read too
    for (unsigned mask = branch_opcodes(code.data() + i); mask; mask &= mask - 1) at(i + size_t(__builtin_ctz(mask)));
  for (; i < code.size(); ++i) at(i);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

void put_abs_jump(std::vector<uint8_t>& out, uint64_t to) {  // jmp *0(%rip); .quad to
  const uint8_t op[] = {0xff, 0x25, 0, 0, 0, 0};
  out.insert(out.end(), std::begin(op), std::end(op));
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(to >> (8 * i)));
}

int32_t rel32(int64_t d, const char* what) {
  if (d < std::numeric_limits<int32_t>::min() || d > std::numeric_limits<int32_t>::max())
    throw UserError(fmt::format("cannot patch: {} out of rel32 reach", what));
  return int32_t(d);
}

}  // namespace

namespace {

// The instructions of `code` (at `entry`) that the jump displaces, relocatable; with
// `return_address`, refused where they read the function's return address.
std::variant<EntryPatch, std::string> displace(std::span<const uint8_t> code, uint64_t entry, bool return_address) {
  if (code.size() < RP_PATCH_JUMP_BYTES) return std::string("the function is shorter than the jump");
  EntryPatch p;
  p.entry = entry;
  size_t off = 0;
  int64_t stack_depth = 0;  // bytes pushed since the entry: the return address is at stack_depth(%rsp)
  while (off < RP_PATCH_JUMP_BYTES) {
    const uint8_t* at = code.data() + off;
    size_t avail = code.size() - off;
    EntryPatch::Insn in;
    in.offset = uint8_t(off);
    if (is_endbr64(at, avail)) {
      in.size = 4;
      p.text += "endbr64; ";
    } else {
      const cs_insn* insn = decode_x86(at, avail, entry + off);
      if (!insn) return fmt::format("cannot decode the instruction at +{}", off);
      std::string text = fmt::format("{} {}", insn->mnemonic, insn->op_str);
      const uint8_t* b = at[0] == 0xf2 ? at + 1 : at;  // a bnd prefix
      const cs_x86& x = insn->detail->x86;
      const bool relative = in_group(insn, CS_GRP_BRANCH_RELATIVE);
      if (relative && (b[0] == 0xeb || b[0] == 0xe9)) {
        in.kind = EntryPatch::Insn::Kind::Jump;
      } else if (relative && ((b[0] >= 0x70 && b[0] <= 0x7f) || (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f))) {
        in.kind = EntryPatch::Insn::Kind::CondJump;
        in.cond = uint8_t((b[0] == 0x0f ? b[1] : b[0]) & 0x0f);
      } else {
        for (uint8_t g : {uint8_t(CS_GRP_CALL), uint8_t(CS_GRP_INT), uint8_t(CS_GRP_IRET),
                          uint8_t(CS_GRP_BRANCH_RELATIVE)})
          if (in_group(insn, g)) return fmt::format("its first bytes hold '{}', which cannot run elsewhere", text);
      }
      if (in.kind != EntryPatch::Insn::Kind::Copy) {
        for (uint8_t i = 0; i < x.op_count; ++i)
          if (x.operands[i].type == X86_OP_IMM) in.target = uint64_t(x.operands[i].imm);
      }
      // The agent replaces the return address before these instructions run: one that reads it
      // would see the agent's exit stub (what breakpoints leave alone).
      if (return_address && insn->id == X86_INS_POP && stack_depth == 0)
        return fmt::format("its first bytes pop its return address ({})", text);
      for (uint8_t i = 0; in.kind == EntryPatch::Insn::Kind::Copy && i < x.op_count; ++i) {
        const cs_x86_op& op = x.operands[i];
        if (return_address && op.type == X86_OP_MEM && op.mem.base == X86_REG_RSP && op.mem.index == X86_REG_INVALID &&
            op.mem.disp >= stack_depth && op.mem.disp < stack_depth + 8 && insn->id != X86_INS_LEA)
          return fmt::format("its first bytes read its return address ({})", text);
        if (op.type == X86_OP_REG && (op.reg == X86_REG_RIP || op.reg == X86_REG_EIP))
          return fmt::format("its first bytes read the instruction pointer ({})", text);
        if (op.type == X86_OP_MEM && (op.mem.base == X86_REG_RIP || op.mem.index == X86_REG_RIP)) {
          auto at_disp = disp32_offset({at, insn->size}, x.encoding.disp_offset, op.mem.disp);
          if (!at_disp || op.mem.index == X86_REG_RIP) return fmt::format("cannot relocate '{}'", text);
          in.disp_offset = int8_t(*at_disp);
        }
      }
      if (insn->id == X86_INS_PUSH) stack_depth += 8;
      if (insn->id == X86_INS_SUB && x.op_count == 2 && x.operands[0].type == X86_OP_REG &&
          x.operands[0].reg == X86_REG_RSP && x.operands[1].type == X86_OP_IMM)
        stack_depth += x.operands[1].imm;
      in.size = uint8_t(insn->size);
      p.text += text + "; ";
    }
    p.insns.push_back(in);
    off += in.size;
    if (off > code.size()) return std::string("the function ends inside its first instructions");
  }
  p.original.assign(code.begin(), code.begin() + ptrdiff_t(off));
  if (p.text.size() >= 2) p.text.resize(p.text.size() - 2);
  return p;
}

// push %r11; lea desc(%rip), %r11; jmp *agent; the descriptor at `desc_at` (offsets in the thunk)
void enter_agent(std::vector<uint8_t>& out, uint64_t agent, size_t desc_at, const rp_patch_desc& desc) {
  out.push_back(0x41), out.push_back(0x53);  // push %r11
  const int32_t to_desc = int32_t(desc_at) - int32_t(out.size() + 7);
  const uint8_t lea[] = {0x4c, 0x8d, 0x1d};
  out.insert(out.end(), std::begin(lea), std::end(lea));
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(uint32_t(to_desc) >> (8 * i)));
  put_abs_jump(out, agent);
  out.resize(desc_at, 0xcc);
  const auto* d = reinterpret_cast<const uint8_t*>(&desc);
  out.insert(out.end(), d, d + sizeof desc);
}

// The displaced instructions relocated to the end of `out` (at `thunk` + out.size()), then the
// jump back after them.
void relocated(std::vector<uint8_t>& out, const EntryPatch& p, uint64_t thunk) {
  for (const auto& in : p.insns) {
    if (in.kind == EntryPatch::Insn::Kind::CondJump) {
      out.push_back(uint8_t(0x70 | (in.cond ^ 1)));  // the inverse condition skips the jump
      out.push_back(14);
    }
    if (in.kind != EntryPatch::Insn::Kind::Copy) {
      put_abs_jump(out, in.target);
      continue;
    }
    size_t at = out.size();
    out.insert(out.end(), p.original.begin() + in.offset, p.original.begin() + in.offset + in.size);
    if (in.disp_offset >= 0) {
      int32_t disp;
      std::memcpy(&disp, &out[at + size_t(in.disp_offset)], 4);
      // The displacement is relative to the end of the instruction: same target from the thunk.
      int64_t moved = int64_t(p.entry + in.offset) - int64_t(thunk + at);
      int32_t nd = rel32(int64_t(disp) + moved, "a relocated rip-relative operand");
      std::memcpy(&out[at + size_t(in.disp_offset)], &nd, 4);
    }
  }
  put_abs_jump(out, p.entry + p.original.size());
  if (out.size() > RP_PATCH_THUNK_BYTES) throw UserError("cannot patch: the thunk is too long");
  out.resize(RP_PATCH_THUNK_BYTES, 0xcc);
}

}  // namespace

std::variant<EntryPatch, std::string> plan_entry_patch(std::span<const uint8_t> code, uint64_t entry,
                                                       std::span<const uint64_t> other_sites) {
  auto v = displace(code, entry, true);
  auto* p = std::get_if<EntryPatch>(&v);
  if (!p) return v;
  const size_t off = p->original.size();
  for (uint64_t s : other_sites)
    if (s > entry && s < entry + off) return fmt::format("another probe site lies in its first {} bytes", off);
  for (uint64_t t : branch_targets(code, entry))
    if (t > entry && t < entry + off) return fmt::format("a jump inside the function lands in its first {} bytes", off);
  return v;
}

std::variant<EntryPatch, std::string> plan_span_patch(std::span<const uint8_t> function, uint64_t function_start,
                                                      uint64_t site, std::span<const uint64_t> other_sites) {
  if (site < function_start || site >= function_start + function.size())
    return std::string("the site is not in the function's code");
  auto v = displace(function.subspan(site - function_start), site, false);
  auto* p = std::get_if<EntryPatch>(&v);
  if (!p) return v;
  const size_t off = p->original.size();
  for (uint64_t s : other_sites)
    if (s > site && s < site + off) return fmt::format("another probe site lies in its {} bytes", off);
  for (uint64_t t : branch_targets(function, function_start))
    if (t > site && t < site + off) return fmt::format("a jump in the function lands in its {} bytes", off);
  return v;
}

std::vector<uint8_t> thunk_code(const EntryPatch& p, uint64_t thunk, uint64_t agent_entry, uint32_t region_word) {
  std::vector<uint8_t> out;
  static_assert(RP_PATCH_DESC_OFFSET + sizeof(rp_patch_desc) <= RP_PATCH_CODE_OFFSET);
  enter_agent(out, agent_entry, RP_PATCH_DESC_OFFSET, rp_patch_desc{region_word, 0, thunk + RP_PATCH_CODE_OFFSET});
  out.resize(RP_PATCH_CODE_OFFSET, 0xcc);
  relocated(out, p, thunk);
  return out;
}

std::vector<uint8_t> span_thunk_code(const EntryPatch& p, uint64_t thunk, uint64_t agent_span, uint32_t region_word,
                                     uint32_t role) {
  static_assert(RP_PATCH_RED_ZONE == 128);
  std::vector<uint8_t> out = {0x48, 0x8d, 0x64, 0x24, 0x80};  // lea -128(%rsp), %rsp
  static_assert(RP_SPAN_DESC_OFFSET + sizeof(rp_patch_desc) <= RP_SPAN_CODE_OFFSET);
  enter_agent(out, agent_span, RP_SPAN_DESC_OFFSET, rp_patch_desc{region_word, role, thunk + RP_SPAN_CODE_OFFSET});
  out.resize(RP_SPAN_CODE_OFFSET, 0xcc);
  const uint8_t back[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};  // lea 128(%rsp), %rsp
  out.insert(out.end(), std::begin(back), std::end(back));
  relocated(out, p, thunk);
  return out;
}

std::vector<uint8_t> entry_jump(const EntryPatch& p, uint64_t thunk) {
  std::vector<uint8_t> out(p.original.size(), 0xcc);
  out[0] = 0xe9;
  int32_t d = rel32(int64_t(thunk) - int64_t(p.entry + RP_PATCH_JUMP_BYTES), "the thunk");
  std::memcpy(&out[1], &d, 4);
  return out;
}

}  // namespace roofprof::probes
