// plan_module (docs/native.md, "Sites"): decode each function once, find the block starts of the
// whole module, cut the functions into sites and keep those with flops.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "native/counting.hpp"
#include "native/decode.hpp"
#include "native/layout.hpp"

namespace roofprof::native {

namespace {

constexpr size_t kMaxTableEntries = 65536;

struct Decoded {
  const Function* fn = nullptr;
  size_t first = 0, end = 0;  // its instructions in Module::insns
  std::string refused;        // why none of its sites is patched ("" when they may be)
};

struct Module {
  std::span<const CodeRange> code, data;
  std::vector<Insn> insns;
  std::vector<Decoded> functions;
  std::vector<uint64_t> starts;  // sorted block starts

  bool is_start(uint64_t a) const { return std::binary_search(starts.begin(), starts.end(), a); }
};

const uint8_t* find_bytes(std::span<const CodeRange> ranges, uint64_t at, uint64_t size) {
  for (const CodeRange& r : ranges)
    if (at >= r.address && at + size <= r.address + r.bytes.size()) return r.bytes.data() + (at - r.address);
  return nullptr;
}

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

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

void decode_function(Module& m, const Function& fn) {
  const uint8_t* bytes = find_bytes(m.code, fn.start, fn.size);
  if (!bytes) return;
  Decoded d{&fn, m.insns.size(), 0, ""};
  for (uint64_t off = 0; off < fn.size;) {
    auto insn = decode_insn(bytes + off, fn.size - off, fn.start + off);
    if (!insn) {
      d.refused = "its function does not decode at +" + hex(off);
      break;
    }
    m.insns.push_back(*insn);
    off += insn->length;
  }
  d.end = m.insns.size();
  m.functions.push_back(std::move(d));
}

bool ends_block(Flow f) { return f != Flow::kNext && f != Flow::kJcc; }

void add_branch_starts(Module& m, const std::span<const uint64_t> busy) {
  m.starts.assign(busy.begin(), busy.end());
  for (const Decoded& d : m.functions) {
    m.starts.push_back(d.fn->start);
    for (size_t i = d.first; i < d.end; ++i) {
      const Insn& in = m.insns[i];
      if (in.flow == Flow::kJmp || in.flow == Flow::kJcc || in.flow == Flow::kUnmovable) m.starts.push_back(in.target);
      // after a call: where it returns; after a jmp or ret: reached only by a jump (or a landing pad)
      if (ends_block(in.flow)) m.starts.push_back(in.address + in.length);
    }
  }
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

bool is_switch_jump(const Insn& in) { return in.flow == Flow::kIndirectJmp && in.rip_disp_at == 0; }

void add_jump_tables(Module& m) {
  for (Decoded& d : m.functions) {
    auto first = m.insns.begin() + d.first, last = m.insns.begin() + d.end;
    if (std::none_of(first, last, is_switch_jump)) continue;
    bool found = false;
    for (auto it = first; it != last; ++it)
      if (it->rip_disp_at && it->flow == Flow::kNext)
        found |= add_table_entries(m, it->target, d.fn->start, d.fn->start + d.fn->size);
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

std::vector<Cut> cut_sites(const Module& m, const Decoded& d) {
  std::vector<Cut> out;
  size_t open = SIZE_MAX;
  auto close = [&](size_t end, bool call) {
    if (open != SIZE_MAX) out.push_back({open, end, call});
    open = SIZE_MAX;
  };
  for (size_t i = d.first; i < d.end; ++i) {
    const Insn& in = m.insns[i];
    if (in.flow == Flow::kCall || in.flow == Flow::kUnmovable) {
      close(i, in.flow == Flow::kCall);
      continue;
    }
    if (open != SIZE_MAX && m.is_start(in.address)) close(i, false);
    if (open == SIZE_MAX) open = i;
    if (in.flow != Flow::kNext && in.flow != Flow::kJcc) close(i + 1, false);
  }
  close(d.end, false);
  return out;
}

// The site's segments: a new one after each jcc, each with its static counts and whether the
// flags may be live where it begins.
void add_segments(const Module& m, const Cut& c, Site& s) {
  const Insn* end = &m.insns[c.first] + (c.end - c.first);
  for (size_t i = c.first; i < c.end; ++i) {
    const Insn& in = m.insns[i];
    if (i == c.first || m.insns[i - 1].flow == Flow::kJcc) {
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

uint64_t trampoline_size(const Module& m, const Cut& c, const Site& s) {
  uint64_t size = needs_jump_back(m.insns[c.end - 1]) ? kJumpBackBytes : 0;
  for (const Segment& seg : s.segments) size += counts_bytes(seg);
  for (size_t i = c.first; i < c.end; ++i) {
    const Insn& in = m.insns[i];
    if (in.flops && in.flops->mask) size += masked_count_bytes(*in.flops);
    size += relocated_bytes(in);
  }
  return size;
}

void plan_site(const Module& m, const Decoded& d, const Cut& c, ModulePlan& plan) {
  Site s;
  s.start = m.insns[c.first].address;
  const Insn& last = m.insns[c.end - 1];
  s.end = last.address + last.length;
  for (size_t i = c.first; i < c.end; ++i) {
    const auto& f = m.insns[i].flops;
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
  add_segments(m, c, s);
  s.trampoline_size = trampoline_size(m, c, s);
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
  for (const Function& f : fns) decode_function(m, f);
  add_branch_starts(m, busy);
  add_jump_tables(m);
  std::sort(m.starts.begin(), m.starts.end());
  m.starts.erase(std::unique(m.starts.begin(), m.starts.end()), m.starts.end());
  ModulePlan plan;
  for (const Decoded& d : m.functions)
    for (const Cut& c : cut_sites(m, d)) plan_site(m, d, c, plan);
  lay_out(plan);
  return plan;
}

}  // namespace roofprof::native
