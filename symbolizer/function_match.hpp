#pragma once
// Helpers behind match_functions (declared in symbolizer/modules.hpp).
#include <string_view>

#include "symbolizer/elf_file.hpp"
#include "symbolizer/linespec.hpp"

namespace roofprof::symbolizer {

// How a symbol matches a pattern, best first; each tier is used only where no better one matches.
// Name: the pattern equals (or, with glob characters, glob-matches) the mangled, demangled, short
// or display name, or matches it as a linespec (symbolizer/linespec.hpp). FortranExternal: only
// "kernel" for "kernel_". FortranReexport: "m::x" for module procedure x of another module (a
// name module m makes public with USE; gfortran leaves no trace of it without -g). FortranGeneric:
// "[m::]g" for module procedure g_SUFFIX (of module m): a generic interface g's specific
// procedures by the naming convention (calbec -> calbec_k, calbec_gamma), since gfortran emits
// neither a symbol nor DWARF for a generic name. Cold fragments never match: they are not entries.
enum class MatchTier { None, Name, FortranExternal, FortranReexport, FortranGeneric };
MatchTier match_tier(std::string_view pattern, const LinespecName& parsed, const Symbol& s);

// A quick test that `s` could answer to `parsed` (its last identifier is spelled in the
// symbol's name); false means it does not.
bool may_answer_to(const LinespecName& parsed, const Symbol& s);

}  // namespace roofprof::symbolizer
