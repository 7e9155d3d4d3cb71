#pragma once
// The compile and partial units of an ELF file's DWARF, for the readers of line tables and of
// inlined copies.
#include <elfutils/libdw.h>
#include <libelf.h>

#include <functional>

namespace roofprof::symbolizer {

// Calls `fn` with the root DIE of every compile and partial unit (type and skeleton units hold
// no code); nothing when `elf` has no DWARF.
void for_each_code_unit(Elf* elf, const std::function<void(Dwarf_Die& unit)>& fn);

}  // namespace roofprof::symbolizer
