#include "symbolizer/inlined.hpp"

#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/strings.hpp"
#include "symbolizer/demangle.hpp"
#include "symbolizer/dwarf_units.hpp"

namespace roofprof::symbolizer {
namespace {

const char* string_attr(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  if (!dwarf_attr_integrate(die, name, &attr)) return nullptr;  // follows abstract_origin, specification
  return dwarf_formstring(&attr);
}

bool unsigned_attr(Dwarf_Die* die, unsigned name, Dwarf_Word& out) {
  Dwarf_Attribute attr;
  return dwarf_attr(die, name, &attr) && dwarf_formudata(&attr, &out) == 0;
}

class Reader {
 public:
  Reader(Dwarf_Die* cu, std::vector<InlinedCopy>& out) : out_(out) {
    size_t n = 0;
    if (dwarf_getsrcfiles(cu, &files_, &n) != 0) files_ = nullptr;
  }

  void walk(Dwarf_Die* die) {
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
      if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) add(&child);
      walk(&child);  // copies nested in copies, and in lexical blocks
    } while (dwarf_siblingof(&child, &child) == 0);
  }

 private:
  void add(Dwarf_Die* die) {
    const char* linkage = string_attr(die, DW_AT_linkage_name);
    if (!linkage) linkage = string_attr(die, DW_AT_MIPS_linkage_name);
    const char* name = string_attr(die, DW_AT_name);
    if (!linkage && !name) return;
    InlinedCopy c;
    c.origin.name = linkage ? linkage : name;
    c.origin.demangled = demangle(c.origin.name);
    c.origin.short_name = c.origin.demangled == c.origin.name ? c.origin.name : short_name(c.origin.demangled);
    c.origin.global = true;
    Dwarf_Addr base = 0, start = 0, end = 0;
    bool first = true;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &start, &end)) > 0;) {
      if (first) c.entry = start, first = false;  // an empty range still names an address
      if (end > start) c.ranges.push_back({start, end});
    }
    if (c.ranges.empty()) return;
    Dwarf_Addr entry = 0;
    if (dwarf_entrypc(die, &entry) == 0) c.entry = entry;  // DW_AT_entry_pc, else DW_AT_low_pc
    std::sort(c.ranges.begin(), c.ranges.end(),
              [](const AddressRange& a, const AddressRange& b) { return a.begin < b.begin; });
    Dwarf_Word file = 0, line = 0;
    if (files_ && unsigned_attr(die, DW_AT_call_file, file) && unsigned_attr(die, DW_AT_call_line, line)) {
      const char* path = dwarf_filesrc(files_, file, nullptr, nullptr);
      if (path) c.call_site = std::string(path_basename(path)) + ":" + std::to_string(line);
    }
    out_.push_back(std::move(c));
  }

  std::vector<InlinedCopy>& out_;
  Dwarf_Files* files_ = nullptr;
};

bool inside(const std::vector<AddressRange>& ranges, uint64_t a) {
  return std::any_of(ranges.begin(), ranges.end(), [a](const AddressRange& r) { return a >= r.begin && a < r.end; });
}

// The most bytes between an entry point outside the ranges and the code it leads to (gcc puts
// DW_AT_entry_pc on an instruction or two of the caller's scheduled before the copy's code).
constexpr uint64_t kMaxLeadBytes = 64;

// The copy's ranges with the way in from an entry point that lies before them.
std::vector<AddressRange> with_lead(std::vector<AddressRange> ranges, uint64_t entry) {
  if (inside(ranges, entry)) return ranges;
  uint64_t next = UINT64_MAX;
  for (const AddressRange& r : ranges)
    if (r.begin > entry) next = std::min(next, r.begin);
  if (next != UINT64_MAX && next - entry <= kMaxLeadBytes) ranges.push_back({entry, next});
  return ranges;
}

struct Capstone {
  csh h = 0;
  Capstone() {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
      h = 0;
    else
      cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  }
  ~Capstone() {
    if (h) cs_close(&h);
  }
};

}  // namespace

std::vector<InlinedCopy> read_inlined(Elf* elf) {
  std::vector<InlinedCopy> out;
  for_each_code_unit(elf, [&](Dwarf_Die& unit) { Reader(&unit, out).walk(&unit); });
  return out;
}

CopyEdges copy_edges(const std::vector<AddressRange>& copy_ranges, uint64_t entry, const std::vector<CodeBlock>& blocks) {
  CopyEdges e;
  e.entry = entry;
  const std::vector<AddressRange> ranges = with_lead(copy_ranges, entry);
  static thread_local Capstone cs;
  if (!cs.h) {
    e.why_not = "the disassembler is not available";
    return e;
  }
  std::set<uint64_t> entries, exits;
  bool entry_decoded = false;  // an instruction starts at the entry point
  cs_insn* insn = cs_malloc(cs.h);
  for (const CodeBlock& b : blocks) {
    if (inside(ranges, b.begin)) entries.insert(b.begin);  // callers enter a function at its start
    const uint8_t* p = b.code;
    size_t left = b.size;
    uint64_t a = b.begin;
    while (left > 0 && e.why_not.empty()) {
      if (!cs_disasm_iter(cs.h, &p, &left, &a,
                          insn)) {  // data or padding it cannot decode: skip a byte
        ++p, --left, ++a;
        continue;
      }
      const uint64_t at = insn->address, next = at + insn->size;
      entry_decoded = entry_decoded || at == entry;
      const bool in = inside(ranges, at);
      const cs_x86& x = insn->detail->x86;
      const bool jump = cs_insn_group(cs.h, insn, CS_GRP_JUMP);
      const bool ret = cs_insn_group(cs.h, insn, CS_GRP_RET) || cs_insn_group(cs.h, insn, CS_GRP_IRET);
      const bool direct = x.op_count == 1 && x.operands[0].type == X86_OP_IMM;
      std::vector<uint64_t> to;
      if (ret) {
        if (in) e.why_not = "it returns from inside its code";
      } else if (jump) {
        if (direct)
          to.push_back(uint64_t(x.operands[0].imm));
        else if (in)
          e.why_not = "it jumps through a register or memory from inside its code";
        if (insn->id != X86_INS_JMP && insn->id != X86_INS_LJMP) to.push_back(next);  // conditional
      } else if (insn->id != X86_INS_UD2 && insn->id != X86_INS_HLT) {
        to.push_back(next);  // a call returns here: its callee runs inside the copy
      }
      for (uint64_t t : to) {
        if (in && t == entry) e.entry_looped = true;
        if (in && !inside(ranges, t)) exits.insert(t);
        if (!in && inside(ranges, t)) entries.insert(t);
      }
    }
  }
  cs_free(insn, 1);
  if (!e.why_not.empty()) return e;
  if (!entry_decoded)
    e.why_not = fmt::format("its entry point {:#x} is not an instruction of the code holding it", entry);
  else if (entries.empty())
    e.why_not = "no way into its code was found";
  else if (exits.empty())
    e.why_not = "no way out of its code was found";
  entries.erase(entry);
  e.reentries.assign(entries.begin(), entries.end());
  e.exits.assign(exits.begin(), exits.end());
  return e;
}

}  // namespace roofprof::symbolizer
