#include "symbolizer/got_only.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "symbolizer/elf_handle.hpp"

namespace roofprof::symbolizer {

namespace {

// Candidates that are exported functions with default visibility -> their size.
using Functions = std::map<uint64_t, uint64_t>;

Functions exported(Elf* elf, const std::set<uint64_t>& candidates) {
  Functions out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    size_t n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
      unsigned bind = GELF_ST_BIND(sym.st_info);
      // An IFUNC's value is its resolver: references to the resolver say nothing about calls
      // of the implementation it chooses, which callers in other modules reach through their
      // GOT (where the agent sees them). Calls inside the file reach the implementation
      // directly and are not seen: the agent is still the only mechanism that can measure it.
      const int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
      if (GELF_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
      if (candidates.count(sym.st_value)) out[sym.st_value] = std::max<uint64_t>(out[sym.st_value], sym.st_size);
    }
  }
  return out;
}

// Whether the 4 bytes at b[i] can be the pc-relative displacement that ends an instruction:
// they follow the opcode of call/jmp rel32 (e8, e9), of jcc rel32 (0f 80-8f), or a ModRM byte
// of a rip-relative operand (mod 00, r/m 101: lea f(%rip), call *x(%rip), ...). Every direct
// reference to a code address has one of these forms; padding (nopw 0x0(%rax,%rax,1) ends in
// zeros, which read as "rel32 0 to the next function") does not.
bool rel32_position(const uint8_t* b, size_t i) {
  uint8_t p = b[i - 1];
  if (p == 0xe8 || p == 0xe9) return true;
  if ((p & 0xf0) == 0x80 && i >= 2 && b[i - 2] == 0x0f) return true;
  return (p & 0xc7) == 0x05;
}

// Drops `target` when the reference at `from` lies outside the target function itself: a
// jump or call of a function to its own entry (a loop, direct recursion) stays inside the
// instance that the outermost call opened, which the agent sees (recursion counts once).
bool drop(Functions& left, uint64_t target, uint64_t from) {
  auto it = left.find(target);
  if (it == left.end() || (from >= it->first && from < it->first + it->second)) return false;
  left.erase(it);
  return true;
}

// Removes from `left` every address a displacement in executable sections points at.
void drop_code_references(Elf* elf, Functions& left) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !left.empty(); scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    const auto* b = static_cast<const uint8_t*>(data->d_buf);
    size_t size = data->d_size;
    const uint64_t lo = left.begin()->first, hi = left.rbegin()->first;
    for (size_t i = 1; i + 4 <= size; ++i) {
      int32_t rel;
      std::memcpy(&rel, b + i, 4);
      uint64_t target = sh.sh_addr + i + 4 + uint64_t(int64_t(rel));
      if (target < lo || target > hi || !rel32_position(b, i)) continue;
      if (drop(left, target, sh.sh_addr + i) && left.empty()) return;
    }
    for (size_t i = 0; i + 2 <= size; ++i) {  // jmp rel8 (eb), jcc rel8 (70-7f), loop/jrcxz (e0-e3)
      if (b[i] != 0xeb && (b[i] & 0xf0) != 0x70 && (b[i] & 0xfc) != 0xe0) continue;
      uint64_t target = sh.sh_addr + i + 2 + uint64_t(int64_t(int8_t(b[i + 1])));
      if (target >= lo && target <= hi && drop(left, target, sh.sh_addr + i) && left.empty()) return;
    }
  }
}

// Removes every address that a dynamic relocation stores in data.
void drop_data_references(Elf* elf, Functions& left) {
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
  Functions left = exported(h.elf(), candidates);
  if (!left.empty()) drop_data_references(h.elf(), left);
  if (!left.empty()) drop_code_references(h.elf(), left);
  std::set<uint64_t> out;
  for (const auto& [addr, size] : left) out.insert(addr);
  return out;
}

}  // namespace roofprof::symbolizer
