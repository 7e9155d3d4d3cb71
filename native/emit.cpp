// emit (docs/native.md, "Trampolines"): the trampolines plan_module laid out, and the jumps to them.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "native/counting.hpp"
#include "native/decode.hpp"
#include "native/layout.hpp"
#include "native/ranges.hpp"

namespace roofprof::native {

namespace {

class Writer {
 public:
  Writer(const ModulePlan& plan, std::span<const CodeRange> code, uint64_t base) : plan_(plan), code_(code), base_(base) {}

  Emitted run() {
    Emitted out;
    out.base = base_;
    out.trampolines.assign(plan_.trampoline_bytes, 0xcc);
    for (const Site& s : plan_.sites) {
      std::vector<Insn> insns = decode_site(s);
      std::vector<uint8_t> t = trampoline(s, insns);
      if (t.size() != s.trampoline_size)
        throw std::logic_error("native: trampoline of " + hex(s.start) + " is not the size its plan laid out");
      std::copy(t.begin(), t.end(), out.trampolines.begin() + s.trampoline_at);
      out.jumps.push_back(jump(s, insns));
    }
    out.relocs = std::move(relocs_);
    return out;
  }

 private:
  const uint8_t* bytes_at(uint64_t at, uint64_t size) const {
    if (const uint8_t* p = find_bytes(code_, at, size)) return p;
    throw std::logic_error("native: site " + hex(at) + " is not in the code given to emit");
  }

  std::vector<Insn> decode_site(const Site& s) const {
    const uint8_t* p = bytes_at(s.start, s.end - s.start);
    std::vector<Insn> out;
    for (uint64_t a = s.start; a < s.end;) {
      auto in = decode_insn(p + (a - s.start), s.end - a, a);
      if (!in) throw std::logic_error("native: site " + hex(s.start) + " no longer decodes");
      out.push_back(*in);
      a += in->length;
    }
    return out;
  }

  // A patched site's start runs its trampoline, unless another probe is there; any other
  // address runs the original.
  uint64_t destination(uint64_t target) const {
    auto it = std::lower_bound(plan_.sites.begin(), plan_.sites.end(), target,
                               [](const Site& s, uint64_t a) { return s.start < a; });
    return it != plan_.sites.end() && it->start == target && !it->probed ? base_ + it->trampoline_at : target;
  }

  static int32_t rel32(uint64_t from_next, uint64_t to) {
    const int64_t d = int64_t(to - from_next);
    if (d != int32_t(d))
      throw UserError("native counting: " + hex(to) + " is out of rel32 reach of trampolines at " + hex(from_next) +
                      "; map the trampolines within 2 GiB of the module's code and data");
    return int32_t(d);
  }

  // The field's offset in the trampolines, when its target is out of them.
  void note_reloc(uint64_t field, uint64_t to) {
    if (to < base_ || to >= base_ + plan_.trampoline_bytes) relocs_.push_back(uint32_t(field - base_));
  }

  void put_rel32(std::vector<uint8_t>& t, uint64_t here, uint64_t to) {
    note_reloc(here + t.size(), to);
    const int32_t d = rel32(here + t.size() + 4, to);
    for (int i = 0; i < 4; ++i) t.push_back(uint8_t(uint32_t(d) >> (8 * i)));
  }

  void put_insn(const Insn& in, std::vector<uint8_t>& t, uint64_t here) {
    if (in.flops && in.flops->mask) put_masked_count(*in.flops, t);
    if (in.flow == Flow::kJcc) {
      t.insert(t.end(), {0x0f, uint8_t(0x80 | in.cc)});
      put_rel32(t, here, destination(in.target));
      return;
    }
    if (in.flow == Flow::kJmp) {
      t.push_back(0xe9);
      put_rel32(t, here, destination(in.target));
      return;
    }
    const uint8_t* src = bytes_at(in.address, in.length);
    const size_t at = t.size();
    t.insert(t.end(), src, src + in.length);
    if (in.rip_disp_at) {
      note_reloc(here + at + in.rip_disp_at, in.target);
      const int32_t d = rel32(here + at + in.length, in.target);
      std::memcpy(&t[at + in.rip_disp_at], &d, 4);
    }
  }

  std::vector<uint8_t> trampoline(const Site& s, const std::vector<Insn>& insns) {
    const uint64_t here = base_ + s.trampoline_at;
    std::vector<uint8_t> t;
    auto seg = s.segments.begin();
    for (const Insn& in : insns) {
      if (seg != s.segments.end() && seg->start == in.address) put_counts(*seg++, t);
      put_insn(in, t, here);
    }
    if (needs_jump_back(insns.back())) {
      t.push_back(0xe9);
      put_rel32(t, here, destination(s.end));
    }
    return t;
  }

  Emitted::Jump jump(const Site& s, const std::vector<Insn>& insns) const {
    Emitted::Jump j;
    j.at = s.start;
    j.bytes.push_back(0xe9);
    const int32_t d = rel32(s.start + kJumpBytes, base_ + s.trampoline_at);
    for (int i = 0; i < 4; ++i) j.bytes.push_back(uint8_t(uint32_t(d) >> (8 * i)));
    uint64_t cut = s.start;
    for (const Insn& in : insns) {
      if (cut >= s.start + kJumpBytes) break;
      cut = in.address + in.length;
    }
    j.bytes.resize(cut - s.start, 0xcc);
    return j;
  }

  const ModulePlan& plan_;
  std::span<const CodeRange> code_;
  uint64_t base_;
  std::vector<uint32_t> relocs_;
};

int32_t shifted(int32_t v, int64_t by, const char* what) {
  const int64_t d = int64_t(v) + by;
  if (d != int32_t(d))
    throw UserError(std::string("native counting: ") + what +
                    " is out of rel32 reach once moved; map the trampolines within 2 GiB of the module's code and data");
  return int32_t(d);
}

}  // namespace

Emitted emit(const ModulePlan& plan, std::span<const CodeRange> code, uint64_t base) {
  return Writer(plan, code, base).run();
}

// A field reaching out of the trampolines (target - (base + offset + 4)) changes by what the
// module moved less what the trampolines moved; a jump into them, by the opposite.
Emitted rebased(Emitted e, int64_t bias_shift, uint64_t base) {
  const int64_t apart = int64_t(base - e.base) - bias_shift;  // trampolines relative to the module
  for (uint32_t off : e.relocs) {
    if (off > e.trampolines.size() || e.trampolines.size() - off < 4)
      throw std::logic_error("native: a relocation lies outside the trampolines");
    int32_t v;
    std::memcpy(&v, &e.trampolines[off], 4);
    v = shifted(v, -apart, "an operand of a trampoline");
    std::memcpy(&e.trampolines[off], &v, 4);
  }
  for (Emitted::Jump& j : e.jumps) {
    j.at += uint64_t(bias_shift);
    int32_t v;
    std::memcpy(&v, &j.bytes[1], 4);
    v = shifted(v, apart, "a jump to a trampoline");
    std::memcpy(&j.bytes[1], &v, 4);
  }
  e.base = base;
  return e;
}

}  // namespace roofprof::native
