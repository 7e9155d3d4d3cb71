// plan_module (docs/native.md, "Sites"): a first pass over every function finds the block starts
// of the whole module; a second decodes the functions with flops again and cuts them into sites.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "native/counting.hpp"
#include "native/decode.hpp"
#include "native/layout.hpp"
#include "native/ranges.hpp"

namespace roofprof::native {

namespace {

constexpr size_t kMaxTableEntries = 65536;

// What the first pass keeps of a function: no instructions (a module has millions), only what
// the module-wide block starts and the second pass need.
struct Decoded {
  const Function* fn = nullptr;
  const uint8_t* bytes = nullptr;
  bool has_fp = false;
  bool has_switch_jump = false;   // an indirect jmp through a register
  std::vector<uint64_t> rip_refs;       // addresses its rip-relative operands name (PIC table candidates)
  std::vector<uint64_t> absolute_refs;  // disp32(,%index,8) operands' addresses (non-PIC table candidates)
  std::string refused;             // why none of its sites is patched ("" when they may be)
};

struct Module {
  std::span<const CodeRange> code, data;
  std::vector<Decoded> functions;
  std::vector<uint64_t> starts;  // sorted block starts
};

// One function per start, each cut at the next one's start (assembler symbols inside a function,
// aliases), so that no two functions share an instruction.
std::vector<Function> distinct_functions(std::span<const Function> functions) {
  std::vector<Function> out;
  for (const Function& f : functions)
    if (f.size > 0) out.push_back(f);
  std::sort(out.begin(), out.end(), [](const Function& a, const Function& b) {
    return a.start != b.start ? a.start < b.start : a.size > b.size;
  });
  out.erase(std::unique(out.begin(), out.end(), [](const Function& a, const Function& b) { return a.start == b.start; }),
            out.end());
  for (size_t i = 0; i + 1 < out.size(); ++i) out[i].size = std::min(out[i].size, out[i + 1].start - out[i].start);
  return out;
}

bool ends_block(Flow f) { return f != Flow::kNext && f != Flow::kJcc; }
// An indirect jmp not through a rip-relative slot (a tail call through the GOT is not a switch).
bool is_switch_jump(const Insn& in) { return in.flow == Flow::kIndirectJmp && in.rip_disp_at == 0; }

// Decodes `d`'s function linearly, calling each(insn) for every instruction; sets d.refused
// where it stops decoding.
template <class Each>
void decode_function(Decoded& d, Each&& each) {
  const Function& fn = *d.fn;
  for (uint64_t off = 0; off < fn.size;) {
    auto insn = decode_insn(d.bytes + off, fn.size - off, fn.start + off);
    if (!insn) {
      d.refused = "its function does not decode at +" + hex(off);
      return;
    }
    each(*insn);
    off += insn->length;
  }
}

// First pass: block starts from branches, calls and terminators, and what the second needs.
void scan_function(Module& m, Decoded& d) {
  m.starts.push_back(d.fn->start);
  decode_function(d, [&](const Insn& in) {
    if (in.flow == Flow::kJmp || in.flow == Flow::kJcc || in.flow == Flow::kUnmovable) m.starts.push_back(in.target);
    // after a call: where it returns; after a jmp or ret: reached only by a jump (or a landing pad)
    if (ends_block(in.flow)) m.starts.push_back(in.address + in.length);
    d.has_fp |= in.flops.has_value();
    d.has_switch_jump |= is_switch_jump(in);
    if (in.rip_disp_at && in.flow == Flow::kNext) d.rip_refs.push_back(in.target);
    if (in.absolute_table) d.absolute_refs.push_back(in.absolute_table);
  });
  if (!d.has_switch_jump) d.rip_refs = {}, d.absolute_refs = {};
}

// A switch's table: int32 offsets from the table's address (gcc and clang, -fPIC or not:
// lea table(%rip) + movslq (table,idx,4) + add + jmp *), read while they land in code.
bool add_table_entries(Module& m, uint64_t table, uint64_t fn_start, uint64_t fn_end) {
  bool into_fn = false;
  for (size_t k = 0; k < kMaxTableEntries; ++k) {
    const uint8_t* p = find_bytes(m.data, table + 4 * k, 4);
    if (!p) p = find_bytes(m.code, table + 4 * k, 4);
    if (!p) break;
    int32_t rel;
    std::memcpy(&rel, p, 4);
    const uint64_t target = table + int64_t(rel);
    if (!find_bytes(m.code, target, 1)) break;
    m.starts.push_back(target);
    into_fn |= target >= fn_start && target < fn_end;
  }
  return into_fn;
}

// A non-PIC switch's table: absolute 8-byte addresses (gcc -fno-pic: jmp *table(,%idx,8); clang:
// mov table(,%idx,8), %reg; jmp *%reg), read while they land in code.
bool add_absolute_entries(Module& m, uint64_t table, uint64_t fn_start, uint64_t fn_end) {
  bool into_fn = false;
  for (size_t k = 0; k < kMaxTableEntries; ++k) {
    const uint8_t* p = find_bytes(m.data, table + 8 * k, 8);
    if (!p) p = find_bytes(m.code, table + 8 * k, 8);
    if (!p) break;
    uint64_t target;
    std::memcpy(&target, p, 8);
    if (!find_bytes(m.code, target, 1)) break;
    m.starts.push_back(target);
    into_fn |= target >= fn_start && target < fn_end;
  }
  return into_fn;
}

void add_jump_tables(Module& m) {
  for (Decoded& d : m.functions) {
    if (!d.has_switch_jump) continue;
    bool found = false;
    for (uint64_t table : d.rip_refs) found |= add_table_entries(m, table, d.fn->start, d.fn->start + d.fn->size);
    for (uint64_t table : d.absolute_refs) found |= add_absolute_entries(m, table, d.fn->start, d.fn->start + d.fn->size);
    if (!found && d.refused.empty()) d.refused = "its function has an indirect jump whose table was not found";
  }
}

// Whether the flags may be live at the start of [first, last): nothing wrote all six before one
// of them was read. At a ret or a following call they are dead (the ABI preserves none).
bool flags_live(const Insn* first, const Insn* last, bool call_follows) {
  uint8_t written = 0;
  for (const Insn* in = first; in != last; ++in) {
    if (in->flags_read & ~written) return true;
    written |= in->flags_written;
    if (written == kAllArithFlags) return false;
  }
  return !(call_follows || (last != first && last[-1].flow == Flow::kRet));
}

struct Cut {
  size_t first, end;
  bool call_follows;
};

std::vector<Cut> cut_sites(const Module& m, const std::vector<Insn>& insns) {
  std::vector<Cut> out;
  if (insns.empty()) return out;
  auto next_start = std::upper_bound(m.starts.begin(), m.starts.end(), insns.front().address);
  size_t open = SIZE_MAX;
  auto close = [&](size_t end, bool call) {
    if (open != SIZE_MAX) out.push_back({open, end, call});
    open = SIZE_MAX;
  };
  for (size_t i = 0; i < insns.size(); ++i) {
    const Insn& in = insns[i];
    while (next_start != m.starts.end() && *next_start < in.address) ++next_start;
    const bool is_start = next_start != m.starts.end() && *next_start == in.address;
    if (in.flow == Flow::kCall || in.flow == Flow::kUnmovable) {
      close(i, in.flow == Flow::kCall);
      continue;
    }
    if (open != SIZE_MAX && is_start) close(i, false);
    if (open == SIZE_MAX) open = i;
    if (in.flow != Flow::kNext && in.flow != Flow::kJcc) close(i + 1, false);
  }
  close(insns.size(), false);
  return out;
}

// The site's segments: a new one after each jcc, each with its static counts and whether the
// flags may be live where it begins.
void add_segments(const std::vector<Insn>& insns, const Cut& c, Site& s) {
  const Insn* end = insns.data() + c.end;
  for (size_t i = c.first; i < c.end; ++i) {
    const Insn& in = insns[i];
    if (i == c.first || insns[i - 1].flow == Flow::kJcc) {
      Segment seg;
      seg.start = in.address;
      seg.flags_saved = flags_live(&in, end, c.call_follows);
      s.segments.push_back(seg);
    }
    if (in.flops && !in.flops->mask) {
      s.segments.back().counts[in.flops->slot] += in.flops->flops();
      s.counts[in.flops->slot] += in.flops->flops();
    }
  }
  s.flags_saved = s.segments.front().flags_saved;
}

uint64_t trampoline_size(const std::vector<Insn>& insns, const Cut& c, const Site& s) {
  uint64_t size = needs_jump_back(insns[c.end - 1]) ? kJumpBackBytes : 0;
  for (const Segment& seg : s.segments) size += counts_bytes(seg);
  for (size_t i = c.first; i < c.end; ++i) {
    const Insn& in = insns[i];
    if (in.flops && in.flops->mask) size += masked_count_bytes(*in.flops);
    size += relocated_bytes(in);
  }
  return size;
}

void plan_site(const std::vector<Insn>& insns, const Decoded& d, const Cut& c, ModulePlan& plan) {
  Site s;
  s.start = insns[c.first].address;
  const Insn& last = insns[c.end - 1];
  s.end = last.address + last.length;
  for (size_t i = c.first; i < c.end; ++i) {
    const auto& f = insns[i].flops;
    if (!f) continue;
    ++s.fp_insns;
    if (f->mask) ++s.masked;
  }
  if (s.fp_insns == 0) return;
  plan.fp_insns += s.fp_insns;
  std::string why = d.refused;
  if (why.empty() && s.end - s.start < kJumpBytes) why = "shorter than a jump (" + std::to_string(s.end - s.start) + " bytes)";
  if (!why.empty()) {
    plan.uncounted.push_back({s.start, d.fn->name, why, s.fp_insns});
    plan.uncounted_fp_insns += s.fp_insns;
    return;
  }
  add_segments(insns, c, s);
  s.trampoline_size = trampoline_size(insns, c, s);
  plan.sites.push_back(std::move(s));
}

void lay_out(ModulePlan& plan) {
  std::sort(plan.sites.begin(), plan.sites.end(), [](const Site& a, const Site& b) { return a.start < b.start; });
  uint64_t at = 0;
  for (Site& s : plan.sites) {
    s.trampoline_at = at;
    at = (at + s.trampoline_size + kTrampolineAlign - 1) / kTrampolineAlign * kTrampolineAlign;
  }
  plan.trampoline_bytes = at;
}

}  // namespace

ModulePlan plan_module(std::span<const CodeRange> code, std::span<const Function> functions,
                       std::span<const uint64_t> busy, std::span<const CodeRange> data) {
  Module m;
  m.code = code;
  m.data = data;
  const std::vector<Function> fns = distinct_functions(functions);
  m.starts.assign(busy.begin(), busy.end());
  for (const Function& f : fns) {
    Decoded d;
    d.fn = &f;
    d.bytes = find_bytes(code, f.start, f.size);
    if (!d.bytes) continue;
    scan_function(m, d);
    m.functions.push_back(std::move(d));
  }
  add_jump_tables(m);
  std::sort(m.starts.begin(), m.starts.end());
  m.starts.erase(std::unique(m.starts.begin(), m.starts.end()), m.starts.end());
  ModulePlan plan;
  std::vector<Insn> insns;
  for (Decoded& d : m.functions) {
    if (!d.has_fp) continue;
    insns.clear();
    decode_function(d, [&](const Insn& in) { insns.push_back(in); });
    for (const Cut& c : cut_sites(m, insns)) plan_site(insns, d, c, plan);
  }
  std::vector<uint64_t> probed(busy.begin(), busy.end());
  std::sort(probed.begin(), probed.end());
  for (Site& site : plan.sites) site.probed = std::binary_search(probed.begin(), probed.end(), site.start);
  lay_out(plan);
  return plan;
}

}  // namespace roofprof::native
