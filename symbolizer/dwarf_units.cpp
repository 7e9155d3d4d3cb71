#include "symbolizer/dwarf_units.hpp"

#include <dwarf.h>

namespace roofprof::symbolizer {

void for_each_code_unit(Elf* elf, const std::function<void(Dwarf_Die& unit)>& fn) {
  Dwarf* dw = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (dw == nullptr) return;
  Dwarf_CU* cu = nullptr;
  Dwarf_CU* next = nullptr;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  Dwarf_Die cudie, subdie;
  while (dwarf_get_units(dw, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
    cu = next;
    if (unit_type == DW_UT_compile || unit_type == DW_UT_partial) fn(cudie);
  }
  dwarf_end(dw);
}

}  // namespace roofprof::symbolizer
