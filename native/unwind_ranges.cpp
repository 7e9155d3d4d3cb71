#include "native/unwind_ranges.hpp"

#include <elf.h>

#include <cstring>
#include <optional>

namespace roofprof::native {
namespace {

// DWARF pointer encodings (LSB Core, "DWARF Exception Header Encoding")
constexpr uint8_t kAbsptr = 0x00, kUdata4 = 0x03, kSdata4 = 0x0b, kUdata8 = 0x04, kSdata8 = 0x0c;
constexpr uint8_t kPcrel = 0x10, kDatarel = 0x30, kOmit = 0xff;

class Bytes {
 public:
  explicit Bytes(std::span<const uint8_t> data) : d_(data) {}
  bool has(uint64_t off, uint64_t n) const { return off <= d_.size() && n <= d_.size() - off; }
  template <class T>
  std::optional<T> get(uint64_t off) const {
    if (!has(off, sizeof(T))) return std::nullopt;
    T v;
    std::memcpy(&v, d_.data() + off, sizeof v);
    return v;
  }
  size_t size() const { return d_.size(); }

 private:
  std::span<const uint8_t> d_;
};

std::optional<uint64_t> uleb(const Bytes& b, uint64_t& off) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    auto byte = b.get<uint8_t>(off++);
    if (!byte) return std::nullopt;
    v |= uint64_t(*byte & 0x7f) << shift;
    if (!(*byte & 0x80)) return v;
  }
  return std::nullopt;
}

// A pointer of encoding `enc` at file offset `off` (link-time address `at`), advancing `off`;
// `data_base` for datarel. Only what compilers emit: absolute or pc/data-relative 4/8 bytes.
std::optional<uint64_t> pointer(const Bytes& b, uint64_t& off, uint8_t enc, uint64_t at, uint64_t data_base) {
  int64_t v;
  switch (enc & 0x0f) {
    case kAbsptr:
    case kUdata8:
    case kSdata8: {
      auto x = b.get<int64_t>(off);
      if (!x) return std::nullopt;
      v = *x, off += 8;
      break;
    }
    case kUdata4: {
      auto x = b.get<uint32_t>(off);
      if (!x) return std::nullopt;
      v = *x, off += 4;
      break;
    }
    case kSdata4: {
      auto x = b.get<int32_t>(off);
      if (!x) return std::nullopt;
      v = *x, off += 4;
      break;
    }
    default: return std::nullopt;
  }
  switch (enc & 0x70) {
    case 0: return uint64_t(v);
    case kPcrel: return at + uint64_t(v);
    case kDatarel: return data_base + uint64_t(v);
    default: return std::nullopt;
  }
}

struct Loaded {
  Bytes file;
  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> eh;
};

std::optional<uint64_t> offset_of(const Loaded& l, uint64_t vaddr) {
  for (const auto& p : l.loads)
    if (vaddr >= p.p_vaddr && vaddr < p.p_vaddr + p.p_filesz) return p.p_offset + (vaddr - p.p_vaddr);
  return std::nullopt;
}

// The FDE's pc_range; its CIE's augmentation gives the encoding of its pointers ('R').
std::optional<CodeExtent> fde_extent(const Loaded& l, uint64_t fde_vaddr) {
  auto fde = offset_of(l, fde_vaddr);
  if (!fde) return std::nullopt;
  const Bytes& b = l.file;
  auto len = b.get<uint32_t>(*fde);
  auto cie_ptr = b.get<uint32_t>(*fde + 4);
  if (!len || !cie_ptr || *len == 0 || *len == 0xffffffffu || *cie_ptr == 0) return std::nullopt;
  uint64_t cie = *fde + 4 - *cie_ptr;
  uint64_t off = cie + 8;  // length, CIE id
  auto version = b.get<uint8_t>(off++);
  if (!version) return std::nullopt;
  std::string aug;
  for (auto c = b.get<char>(off++); c && *c; c = b.get<char>(off++)) aug.push_back(*c);
  uint8_t enc = kAbsptr;
  if (!uleb(b, off) || !uleb(b, off)) return std::nullopt;  // code and data alignment
  if (*version == 1) off += 1;                              // return address register
  else if (!uleb(b, off)) return std::nullopt;
  if (!aug.empty() && aug[0] == 'z') {
    if (!uleb(b, off)) return std::nullopt;
    for (size_t i = 1; i < aug.size(); ++i) {
      if (aug[i] == 'R') {
        auto e = b.get<uint8_t>(off++);
        if (!e) return std::nullopt;
        enc = *e;
      } else if (aug[i] == 'P') {
        auto pe = b.get<uint8_t>(off++);
        if (!pe) return std::nullopt;
        uint64_t dummy_off = off;
        if (!pointer(b, dummy_off, uint8_t(*pe & 0x0f), 0, 0)) return std::nullopt;
        off = dummy_off;
      } else if (aug[i] == 'L') {
        off += 1;
      } else if (aug[i] != 'S' && aug[i] != 'B') {
        return std::nullopt;
      }
    }
  }
  uint64_t p = *fde + 8;
  auto begin = pointer(b, p, enc, fde_vaddr + 8, 0);
  auto range = pointer(b, p, uint8_t(enc & 0x0f), 0, 0);
  if (!begin || !range || *range == 0) return std::nullopt;
  return CodeExtent{*begin, *range};
}

// The file and its program headers; nullopt when it is not a 64-bit ELF file.
std::optional<Loaded> load(std::span<const uint8_t> file) {
  Loaded l{Bytes(file), {}, std::nullopt};
  auto eh = l.file.get<Elf64_Ehdr>(0);
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return std::nullopt;
  for (uint16_t i = 0; i < eh->e_phnum; ++i) {
    auto ph = l.file.get<Elf64_Phdr>(eh->e_phoff + uint64_t(i) * eh->e_phentsize);
    if (!ph) return std::nullopt;
    if (ph->p_type == PT_LOAD) l.loads.push_back(*ph);
    if (ph->p_type == PT_GNU_EH_FRAME) l.eh = *ph;
  }
  return l;
}

}  // namespace

std::optional<uint64_t> eh_frame_hdr_address(std::span<const uint8_t> file) {
  auto l = load(file);
  if (!l || !l->eh) return std::nullopt;
  return l->eh->p_vaddr;
}

std::vector<CodeExtent> unwind_ranges(std::span<const uint8_t> file) {
  auto loaded = load(file);
  if (!loaded || !loaded->eh) return {};
  const Loaded& l = *loaded;
  const uint64_t hdr = l.eh->p_offset, hdr_vaddr = l.eh->p_vaddr;
  auto version = l.file.get<uint8_t>(hdr);
  auto ptr_enc = l.file.get<uint8_t>(hdr + 1), count_enc = l.file.get<uint8_t>(hdr + 2);
  auto table_enc = l.file.get<uint8_t>(hdr + 3);
  if (!version || *version != 1 || !ptr_enc || !count_enc || !table_enc || *table_enc != (kDatarel | kSdata4) ||
      *count_enc == kOmit)
    return {};
  uint64_t off = hdr + 4;
  if (!pointer(l.file, off, *ptr_enc, hdr_vaddr + 4, hdr_vaddr)) return {};
  auto count = pointer(l.file, off, *count_enc, hdr_vaddr + (off - hdr), hdr_vaddr);
  if (!count || !l.file.has(off, *count * 8)) return {};
  std::vector<CodeExtent> out;
  out.reserve(*count);
  for (uint64_t i = 0; i < *count; ++i) {
    auto fde = l.file.get<int32_t>(off + 8 * i + 4);
    if (!fde) break;
    if (auto e = fde_extent(l, hdr_vaddr + uint64_t(int64_t(*fde)))) out.push_back(*e);
  }
  return out;
}

}  // namespace roofprof::native
