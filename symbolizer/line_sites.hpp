#pragma once
// FILE:LINE as a span's START or STOP: the addresses where the line's statements begin, or,
// when the line has no code (a blank line, a comment, a brace), those of the next line with code
// in the same function. A line without code whose next line with code is in another function
// (or that is in no function) is an error: the span would silently end elsewhere.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "symbolizer/elf_file.hpp"

namespace roofprof::symbolizer {

struct LineSites {
  std::vector<uint64_t> addresses;  // empty: the file or line is unknown in this module
  unsigned used_line = 0;           // the line the addresses are of
  std::set<std::string> functions;  // the functions holding them (display names)
  std::string error;                // why the line cannot be used ("" when it can)
};

LineSites resolve_line(const ElfFile& module, std::string_view file, unsigned line);

}  // namespace roofprof::symbolizer
