#include "symbolizer/got_only.hpp"

#include <elf.h>

#include <cstring>

#include "symbolizer/elf_handle.hpp"

namespace roofprof::symbolizer {

namespace {

// Candidates that are exported functions with default visibility.
std::set<uint64_t> exported(Elf* elf, const std::set<uint64_t>& candidates) {
  std::set<uint64_t> out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    size_t n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
      unsigned bind = GELF_ST_BIND(sym.st_info);
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
      if (GELF_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
      if (candidates.count(sym.st_value)) out.insert(sym.st_value);
    }
  }
  return out;
}

// Removes from `left` every address a displacement in executable sections points at.
void drop_code_references(Elf* elf, std::set<uint64_t>& left) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !left.empty(); scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    const auto* b = static_cast<const uint8_t*>(data->d_buf);
    size_t size = data->d_size;
    const uint64_t lo = *left.begin(), hi = *left.rbegin();
    for (size_t i = 0; i + 4 <= size; ++i) {
      int32_t rel;
      std::memcpy(&rel, b + i, 4);
      uint64_t target = sh.sh_addr + i + 4 + uint64_t(int64_t(rel));
      if (target >= lo && target <= hi && left.erase(target) && left.empty()) return;
    }
    for (size_t i = 0; i + 2 <= size; ++i) {  // jmp rel8 (eb), jcc rel8 (70-7f)
      if (b[i] != 0xeb && (b[i] & 0xf0) != 0x70) continue;
      uint64_t target = sh.sh_addr + i + 2 + uint64_t(int64_t(int8_t(b[i + 1])));
      if (target >= lo && target <= hi && left.erase(target) && left.empty()) return;
    }
  }
}

// Removes every address that a dynamic relocation stores in data.
void drop_data_references(Elf* elf, std::set<uint64_t>& left) {
  // Symbol values of .dynsym, for absolute relocations against a symbol.
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !left.empty(); scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    Elf_Data* syms = nullptr;
    if (Elf_Scn* link = elf_getscn(elf, sh.sh_link)) syms = elf_getdata(link, nullptr);
    size_t n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n; ++i) {
      GElf_Rela r;
      if (!gelf_getrela(data, int(i), &r)) continue;
      unsigned type = GELF_R_TYPE(r.r_info);
      if (type == R_X86_64_RELATIVE) {
        left.erase(uint64_t(r.r_addend));
      } else if (type == R_X86_64_64 && syms) {
        GElf_Sym sym;
        if (gelf_getsym(syms, int(GELF_R_SYM(r.r_info)), &sym) && sym.st_shndx != SHN_UNDEF)
          left.erase(sym.st_value + uint64_t(r.r_addend));
      }
    }
  }
}

}  // namespace

std::set<uint64_t> only_called_through_got(const std::string& path, const std::set<uint64_t>& candidates) {
  if (candidates.empty()) return {};
  ElfHandle h(path);
  if (h.header().e_type != ET_DYN) return {};
  std::set<uint64_t> left = exported(h.elf(), candidates);
  if (!left.empty()) drop_data_references(h.elf(), left);
  if (!left.empty()) drop_code_references(h.elf(), left);
  return left;
}

}  // namespace roofprof::symbolizer
