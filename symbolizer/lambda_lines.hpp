#pragma once
// Where each lambda of an ELF file is written, from its DWARF: gcc describes a lambda's closure
// as an unnamed structure type whose DW_AT_decl_file/DW_AT_decl_line are those of the lambda
// expression, with an `operator()` member; the member's code (DW_AT_low_pc, on the member
// itself or on a definition that names it by DW_AT_specification) is the lambda's function.
#include <libelf.h>

#include <cstdint>
#include <map>
#include <string>

namespace roofprof::symbolizer {

struct LambdaPlace {
  std::string file;  // base name, as DWARF names the file
  unsigned line = 0;
};

// Entry address of each lambda's operator() -> where the lambda is written. Empty without DWARF.
std::map<uint64_t, LambdaPlace> read_lambda_places(Elf* elf);

}  // namespace roofprof::symbolizer
