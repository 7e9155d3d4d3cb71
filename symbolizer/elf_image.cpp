#include "symbolizer/elf_image.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "common/error.hpp"
#include "symbolizer/debug_file.hpp"
#include "symbolizer/demangle.hpp"

namespace roofprof::symbolizer {

struct RawSymbol {
  std::string_view name;  // version suffix removed; points into libelf's mapped string table
  uint64_t value, size;
  bool global;
  bool ifunc;
};

namespace {

bool is_function(const GElf_Sym& sym) {
  int type = GELF_ST_TYPE(sym.st_info);
  return type == STT_FUNC || type == STT_GNU_IFUNC;
}

}  // namespace

ElfImage::ElfImage(const std::string& path) : path_(path), handle_(path) {
  read_segments();
  open_debug_file();
  std::vector<RawSymbol> raw;
  read_symbols(handle_.elf(), raw);
  if (debug_) read_symbols(debug_->elf(), raw);
  build_functions(raw);
  read_dynamic();
}

void ElfImage::open_debug_file() {
  has_symtab_ = find_section(handle_.elf(), ".symtab") != nullptr;
  if (find_section(handle_.elf(), ".debug_line") && has_symtab_) return;
  // debuginfod is asked for the program's own modules only: every system library of a Debian
  // system without -dbgsym packages would be a download at every run's start.
  debug_search_ = search_debug_file(handle_.elf(), path_, debug_roots(), !in_system_library_dir(path_));
  if (!debug_search_.found) return;
  try {
    debug_ = std::make_unique<ElfHandle>(*debug_search_.found);
    has_symtab_ = has_symtab_ || find_section(debug_->elf(), ".symtab") != nullptr;
  } catch (const UserError&) {
    debug_.reset();
  }
}

std::optional<std::string> ElfImage::stripped_note() const {
  if (has_symtab_) return std::nullopt;
  std::call_once(stripped_once_, [this] {
    stripped_note_ = stripped_message(path_, functions_.size(), debug_search_, owning_package(path_));
  });
  return stripped_note_;
}

void ElfImage::read_segments() {
  Elf* elf = handle_.elf();
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, int(i), &ph)) continue;
    if (ph.p_type == PT_INTERP) {
      has_interp_ = true;
      size_t size = 0;
      const char* file = elf_rawfile(elf, &size);
      if (file && ph.p_offset < size && ph.p_filesz <= size - ph.p_offset)
        interpreter_ = std::string(file + ph.p_offset, strnlen(file + ph.p_offset, ph.p_filesz));
    }
    if (ph.p_type != PT_LOAD) continue;
    segments_.push_back(Segment{ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, (ph.p_flags & PF_X) != 0});
  }
}

void ElfImage::read_symbols(Elf* elf, std::vector<RawSymbol>& raw) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)) continue;
    if (sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym)) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (!name || !*name) continue;
      std::string_view bare = strip_version(name);
      if (sym.st_shndx == SHN_UNDEF) {
        if (sh.sh_type == SHT_DYNSYM && elf == handle_.elf()) imports_.emplace(bare);
        continue;
      }
      if (!is_function(sym) || sym.st_value == 0) continue;
      int bind = GELF_ST_BIND(sym.st_info);
      raw.push_back(RawSymbol{bare, sym.st_value, sym.st_size,
                              bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE,
                              GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC});
    }
  }
}

void ElfImage::build_functions(std::vector<RawSymbol>& raw) {
  std::sort(raw.begin(), raw.end(), [](const RawSymbol& a, const RawSymbol& b) {
    return std::tie(a.value, a.name) < std::tie(b.value, b.name);
  });
  functions_.reserve(raw.size());
  for (size_t i = 0; i < raw.size();) {
    RawSymbol merged = raw[i];
    size_t j = i + 1;
    for (; j < raw.size() && raw[j].value == merged.value && raw[j].name == merged.name; ++j) {
      merged.global = merged.global || raw[j].global;
      merged.ifunc = merged.ifunc || raw[j].ifunc;
      merged.size = std::max(merged.size, raw[j].size);
    }
    Symbol s;
    s.name = std::string(merged.name);
    s.demangled = demangle(s.name);
    s.short_name = s.demangled == s.name ? s.name : short_name(s.demangled);
    s.value = merged.value;
    s.size = merged.size;
    s.global = merged.global;
    s.ifunc = merged.ifunc;
    functions_.push_back(std::move(s));
    i = j;
  }
}

void ElfImage::read_dynamic() {
  Elf* elf = handle_.elf();
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(data, int(i), &dyn)) continue;
      if (dyn.d_tag == DT_NULL) break;
      if (dyn.d_tag != DT_NEEDED) continue;
      const char* name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
      if (name) needed_.emplace_back(name);
    }
  }
}

const Symbol* ElfImage::function_at(uint64_t vaddr) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), vaddr,
                             [](uint64_t a, const Symbol& s) { return a < s.value; });
  if (it == functions_.begin()) return nullptr;
  // Symbols starting at the greatest value <= vaddr; prefer a global one that covers vaddr.
  // A symbol without size (hand-written assembly) runs up to the next symbol in its segment.
  uint64_t start = std::prev(it)->value;
  auto same_segment = [&](uint64_t a, uint64_t b) {
    for (const auto& seg : segments_) {
      uint64_t end = seg.vaddr + seg.memsz;
      if (a >= seg.vaddr && a < end) return b >= seg.vaddr && b < end;
    }
    return false;
  };
  const Symbol* best = nullptr;
  for (auto s = std::prev(it);; --s) {
    if (s->value != start) break;
    bool covers = s->size != 0 ? vaddr < s->value + s->size : same_segment(s->value, vaddr);
    if (covers && (!best || (s->global && !best->global))) best = &*s;
    if (s == functions_.begin()) break;
  }
  return best;
}

const LineTable& ElfImage::lines() const {
  std::call_once(lines_once_, [this] {
    std::vector<AddressRange> code;
    for (const auto& seg : segments_) {
      if (seg.exec) code.push_back(AddressRange{seg.vaddr, seg.vaddr + seg.memsz});
    }
    Elf* dwarf = debug_ && find_section(debug_->elf(), ".debug_line") ? debug_->elf() : handle_.elf();
    lines_ = LineTable::read(dwarf, code);
  });
  return lines_;
}

bool ElfImage::has_line_info() const {
  bool has_dwarf = find_section(handle_.elf(), ".debug_line") != nullptr ||
                   (debug_ && find_section(debug_->elf(), ".debug_line") != nullptr);
  return has_dwarf && !lines().empty();
}

std::vector<uint64_t> ElfImage::line_addresses(std::string_view file, unsigned line,
                                               unsigned* used_line) const {
  return lines().addresses(file, line, used_line);
}

std::optional<std::string> ElfImage::source_of(uint64_t vaddr) const { return lines().source_of(vaddr); }

bool ElfImage::imports(std::string_view symbol) const { return imports_.count(std::string(symbol)) != 0; }

std::optional<std::pair<std::string, unsigned>> ElfImage::lambda_place(uint64_t vaddr) const {
  std::call_once(lambdas_once_, [this] {
    Elf* dwarf = debug_ && find_section(debug_->elf(), ".debug_info") ? debug_->elf() : handle_.elf();
    if (find_section(dwarf, ".debug_info")) lambdas_ = read_lambda_places(dwarf);
  });
  auto it = lambdas_.find(vaddr);
  if (it == lambdas_.end()) return std::nullopt;
  return std::make_pair(it->second.file, it->second.line);
}

const std::vector<InlinedCopy>& ElfImage::inlined() const {
  std::call_once(inlined_once_, [this] {
    Elf* dwarf = debug_ && find_section(debug_->elf(), ".debug_info") ? debug_->elf() : handle_.elf();
    if (find_section(dwarf, ".debug_info")) inlined_ = read_inlined(dwarf);
  });
  return inlined_;
}

CopyEdges ElfImage::edges_of(const InlinedCopy& copy) const {
  size_t file_size = 0;
  const auto* file = reinterpret_cast<const uint8_t*>(elf_rawfile(handle_.elf(), &file_size));
  std::vector<CodeBlock> blocks;
  std::vector<const Symbol*> seen;
  for (const AddressRange& r : copy.ranges) {
    const Symbol* f = function_at(r.begin);
    if (!f || f->size == 0 || std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
    seen.push_back(f);
    for (const Segment& seg : segments_) {
      if (!seg.exec || f->value < seg.vaddr || f->value + f->size > seg.vaddr + seg.filesz) continue;
      const uint64_t off = seg.offset + (f->value - seg.vaddr);
      if (file && off + f->size <= file_size) blocks.push_back(CodeBlock{f->value, file + off, size_t(f->size)});
    }
  }
  if (blocks.empty()) {
    CopyEdges e;
    e.why_not = "the function holding its code has no symbol with a size";
    return e;
  }
  return copy_edges(copy.ranges, copy.entry, blocks);
}

}  // namespace roofprof::symbolizer
