#include "symbolizer/lambda_lines.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstring>

#include "common/strings.hpp"
#include "symbolizer/dwarf_units.hpp"

namespace roofprof::symbolizer {

namespace {

bool unsigned_attr(Dwarf_Die* die, unsigned name, Dwarf_Word& out) {
  Dwarf_Attribute attr;
  return dwarf_attr(die, name, &attr) && dwarf_formudata(&attr, &out) == 0;
}

class Reader {
 public:
  Reader(Dwarf_Die* cu, std::map<uint64_t, LambdaPlace>& out) : out_(out) {
    size_t n = 0;
    if (dwarf_getsrcfiles(cu, &files_, &n) != 0) files_ = nullptr;
  }

  void walk(Dwarf_Die* die) {
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
      int tag = dwarf_tag(&child);
      if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type) && !dwarf_hasattr(&child, DW_AT_name))
        closure(&child);
      else if (tag == DW_TAG_subprogram && dwarf_hasattr(&child, DW_AT_specification))
        definition(&child);
      walk(&child);
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  // Definitions seen before their closure's declaration.
  void finish() {
    for (auto& [decl, entry] : pending_)
      if (auto it = declared_.find(decl); it != declared_.end()) out_[entry] = it->second;
  }

 private:
  void closure(Dwarf_Die* type) {
    Dwarf_Word file = 0, line = 0;
    if (!files_ || !unsigned_attr(type, DW_AT_decl_file, file) || !unsigned_attr(type, DW_AT_decl_line, line)) return;
    const char* path = dwarf_filesrc(files_, file, nullptr, nullptr);
    if (!path) return;
    LambdaPlace place{std::string(path_basename(path)), unsigned(line)};
    Dwarf_Die member;
    if (dwarf_child(type, &member) != 0) return;
    do {
      const char* name = dwarf_diename(&member);
      if (dwarf_tag(&member) != DW_TAG_subprogram || !name || std::strcmp(name, "operator()") != 0) continue;
      Dwarf_Addr low = 0;
      if (dwarf_lowpc(&member, &low) == 0) out_[low] = place;
      declared_[dwarf_dieoffset(&member)] = place;
    } while (dwarf_siblingof(&member, &member) == 0);
  }

  void definition(Dwarf_Die* die) {
    Dwarf_Attribute attr;
    Dwarf_Die decl;
    Dwarf_Addr low = 0;
    if (!dwarf_attr(die, DW_AT_specification, &attr) || !dwarf_formref_die(&attr, &decl) ||
        dwarf_lowpc(die, &low) != 0)
      return;
    pending_[dwarf_dieoffset(&decl)] = low;
  }

  std::map<uint64_t, LambdaPlace>& out_;
  Dwarf_Files* files_ = nullptr;
  std::map<Dwarf_Off, LambdaPlace> declared_;  // operator() declaration -> its closure's place
  std::map<Dwarf_Off, uint64_t> pending_;      // operator() declaration -> a definition's entry
};

}  // namespace

std::map<uint64_t, LambdaPlace> read_lambda_places(Elf* elf) {
  std::map<uint64_t, LambdaPlace> out;
  for_each_code_unit(elf, [&](Dwarf_Die& unit) {
    Reader r(&unit, out);
    r.walk(&unit);
    r.finish();
  });
  return out;
}

}  // namespace roofprof::symbolizer
