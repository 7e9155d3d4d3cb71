#pragma once
// Helpers behind match_functions (declared in symbolizer/modules.hpp).
#include <string_view>

#include "symbolizer/elf_file.hpp"

namespace roofprof::symbolizer {

// `pattern` equals (or, with glob characters, glob-matches) the mangled name, the demangled
// name, or the short name (demangled without parameter list). Cold fragments never glob-match.
bool symbol_matches(std::string_view pattern, const Symbol& s);

}  // namespace roofprof::symbolizer
