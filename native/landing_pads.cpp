#include "native/landing_pads.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "native/ranges.hpp"

namespace roofprof::native {

namespace {

constexpr uint8_t kOmit = 0xff;

// Reads the module's memory at runtime addresses; every read fails (nullopt) outside `mapped`.
class Reader {
 public:
  explicit Reader(std::span<const CodeRange> mapped) : mapped_(mapped) {}

  template <class T>
  std::optional<T> fixed(uint64_t& a) const {
    const uint8_t* p = find_bytes(mapped_, a, sizeof(T));
    if (!p) return std::nullopt;
    T v;
    std::memcpy(&v, p, sizeof v);
    a += sizeof v;
    return v;
  }
  std::optional<uint64_t> uleb(uint64_t& a) const {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      auto b = fixed<uint8_t>(a);
      if (!b) return std::nullopt;
      v |= uint64_t(*b & 0x7f) << shift;
      if (!(*b & 0x80)) return v;
    }
    return std::nullopt;
  }
  std::optional<int64_t> sleb(uint64_t& a) const {
    int64_t v = 0;
    int shift = 0;
    for (; shift < 64; shift += 7) {
      auto b = fixed<uint8_t>(a);
      if (!b) return std::nullopt;
      v |= int64_t(*b & 0x7f) << shift;
      if (!(*b & 0x80)) {
        if (shift + 7 < 64 && (*b & 0x40)) v |= -(int64_t(1) << (shift + 7));
        return v;
      }
    }
    return std::nullopt;
  }
  // A DW_EH_PE-encoded pointer at a; `data_base` for datarel, `func_base` for funcrel.
  std::optional<uint64_t> encoded(uint64_t& a, uint8_t enc, uint64_t data_base = 0, uint64_t func_base = 0) const {
    if (enc == kOmit) return std::nullopt;
    const uint64_t here = a;
    std::optional<uint64_t> v;
    switch (enc & 0x0f) {
      case 0x00: v = fixed<uint64_t>(a); break;
      case 0x01: v = uleb(a); break;
      case 0x02: if (auto x = fixed<uint16_t>(a)) v = *x; break;
      case 0x03: if (auto x = fixed<uint32_t>(a)) v = *x; break;
      case 0x04: v = fixed<uint64_t>(a); break;
      case 0x09: if (auto x = sleb(a)) v = uint64_t(*x); break;
      case 0x0a: if (auto x = fixed<int16_t>(a)) v = uint64_t(int64_t(*x)); break;
      case 0x0b: if (auto x = fixed<int32_t>(a)) v = uint64_t(int64_t(*x)); break;
      case 0x0c: if (auto x = fixed<int64_t>(a)) v = uint64_t(*x); break;
      default: return std::nullopt;
    }
    if (!v) return std::nullopt;
    switch (enc & 0x70) {
      case 0x00: break;
      case 0x10: *v += here; break;
      case 0x30: *v += data_base; break;
      case 0x40: *v += func_base; break;
      default: return std::nullopt;  // textrel, aligned: not used on x86-64
    }
    if (enc & 0x80) return std::nullopt;  // indirect: only personality pointers use it
    return v;
  }

 private:
  std::span<const CodeRange> mapped_;
};

// The LSDA encoding of a CIE (augmentation 'L'), or kOmit.
struct Cie {
  uint8_t lsda_enc = kOmit, fde_enc = 0;
  bool has_augmentation_data = false;
};

std::optional<Cie> read_cie(const Reader& r, uint64_t a) {
  auto len = r.fixed<uint32_t>(a);
  if (!len || *len == 0xffffffff) return std::nullopt;
  auto id = r.fixed<uint32_t>(a);
  if (!id || *id != 0) return std::nullopt;
  auto version = r.fixed<uint8_t>(a);
  if (!version) return std::nullopt;
  std::string aug;
  for (auto c = r.fixed<uint8_t>(a); c && *c; c = r.fixed<uint8_t>(a)) aug += char(*c);
  if (!r.uleb(a) || !r.sleb(a)) return std::nullopt;  // code and data alignment
  if (*version == 1) {
    if (!r.fixed<uint8_t>(a)) return std::nullopt;
  } else if (!r.uleb(a)) {
    return std::nullopt;  // return address register
  }
  Cie cie;
  if (aug.empty() || aug[0] != 'z') return cie;
  cie.has_augmentation_data = true;
  if (!r.uleb(a)) return std::nullopt;
  for (size_t i = 1; i < aug.size(); ++i) {
    auto b = r.fixed<uint8_t>(a);
    if (!b) return std::nullopt;
    if (aug[i] == 'L') cie.lsda_enc = *b;
    else if (aug[i] == 'R') cie.fde_enc = *b;
    else if (aug[i] == 'P') {
      uint64_t p = a;
      // the personality pointer: skip it by its size (it may be indirect)
      const uint8_t enc = uint8_t(*b & 0x7f);
      if (!r.encoded(p, enc)) return std::nullopt;
      a = p;
    } else if (aug[i] != 'S' && aug[i] != 'B') {
      return std::nullopt;
    }
  }
  return cie;
}

// The call-site table of one LSDA: every nonzero landing pad.
void read_lsda(const Reader& r, uint64_t a, uint64_t func_start, std::vector<uint64_t>& out) {
  auto lp_enc = r.fixed<uint8_t>(a);
  if (!lp_enc) return;
  uint64_t lp_start = func_start;
  if (*lp_enc != kOmit) {
    auto v = r.encoded(a, *lp_enc);
    if (!v) return;
    lp_start = *v;
  }
  auto tt_enc = r.fixed<uint8_t>(a);
  if (!tt_enc) return;
  if (*tt_enc != kOmit && !r.uleb(a)) return;
  auto cs_enc = r.fixed<uint8_t>(a);
  auto cs_len = r.uleb(a);
  if (!cs_enc || !cs_len) return;
  const uint64_t end = a + *cs_len;
  while (a < end) {
    auto start = r.encoded(a, *cs_enc), len = r.encoded(a, *cs_enc), pad = r.encoded(a, *cs_enc);
    auto action = r.uleb(a);
    if (!start || !len || !pad || !action) return;
    if (*pad) out.push_back(lp_start + *pad);
  }
}

// One FDE: its function's extent, and where its augmentation data (the LSDA pointer) starts.
struct Fde {
  Cie cie;
  uint64_t pc_begin = 0, pc_range = 0;
  uint64_t augmentation = 0;  // address of the augmentation data length (with cie.has_augmentation_data)
};

std::optional<Fde> read_fde(const Reader& r, uint64_t fde) {
  uint64_t a = fde;
  auto len = r.fixed<uint32_t>(a);
  if (!len || *len == 0 || *len == 0xffffffff) return std::nullopt;
  const uint64_t cie_ptr_at = a;
  auto cie_off = r.fixed<uint32_t>(a);
  if (!cie_off || *cie_off == 0) return std::nullopt;
  auto cie = read_cie(r, cie_ptr_at - *cie_off);
  if (!cie) return std::nullopt;
  auto pc_begin = r.encoded(a, cie->fde_enc);
  if (!pc_begin) return std::nullopt;
  auto pc_range = r.encoded(a, uint8_t(cie->fde_enc & 0x0f));
  if (!pc_range) return std::nullopt;
  return Fde{*cie, *pc_begin, *pc_range, a};
}

// Every FDE the .eh_frame_hdr search table at `eh_frame_hdr` lists, to `each`.
template <class Each>
void for_each_fde(const Reader& r, uint64_t eh_frame_hdr, Each each) {
  uint64_t a = eh_frame_hdr;
  auto version = r.fixed<uint8_t>(a), ptr_enc = r.fixed<uint8_t>(a), count_enc = r.fixed<uint8_t>(a),
       table_enc = r.fixed<uint8_t>(a);
  if (!version || *version != 1 || !ptr_enc || !count_enc || !table_enc) return;
  if (!r.encoded(a, *ptr_enc, eh_frame_hdr)) return;
  auto count = r.encoded(a, *count_enc, eh_frame_hdr);
  if (!count) return;
  for (uint64_t i = 0; i < *count; ++i) {
    auto loc = r.encoded(a, *table_enc, eh_frame_hdr), fde = r.encoded(a, *table_enc, eh_frame_hdr);
    if (!loc || !fde) break;
    if (auto f = read_fde(r, *fde)) each(*f);
  }
}

}  // namespace

std::vector<uint64_t> landing_pads(std::span<const CodeRange> mapped, uint64_t eh_frame_hdr) {
  const Reader r(mapped);
  std::vector<uint64_t> out;
  for_each_fde(r, eh_frame_hdr, [&](const Fde& f) {
    if (f.cie.lsda_enc == kOmit || !f.cie.has_augmentation_data) return;
    uint64_t a = f.augmentation;
    if (!r.uleb(a)) return;  // augmentation data length
    auto lsda = r.encoded(a, f.cie.lsda_enc);
    if (lsda && *lsda) read_lsda(r, *lsda, f.pc_begin, out);
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<CodeExtent> unwind_ranges(std::span<const CodeRange> mapped, uint64_t eh_frame_hdr) {
  const Reader r(mapped);
  std::vector<CodeExtent> out;
  for_each_fde(r, eh_frame_hdr, [&](const Fde& f) {
    if (f.pc_range > 0) out.push_back({f.pc_begin, f.pc_range});
  });
  return out;
}

}  // namespace roofprof::native
