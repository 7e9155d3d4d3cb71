#pragma once
// Helpers behind match_functions (declared in symbolizer/modules.hpp).
#include <string_view>

#include "symbolizer/elf_file.hpp"
#include "symbolizer/linespec.hpp"

namespace roofprof::symbolizer {

// How a symbol matches a pattern. Name: the pattern equals (or, with glob characters,
// glob-matches) the mangled, demangled, short or display name, or matches it as a linespec
// (symbolizer/linespec.hpp). FortranExternal: only "kernel" for "kernel_", used where nothing
// matches by Name. Cold fragments never match: they are not entries.
enum class MatchTier { None, Name, FortranExternal };
MatchTier match_tier(std::string_view pattern, const LinespecName& parsed, const Symbol& s);

// A quick test that `s` could answer to `parsed` (its last identifier is spelled in the
// symbol's name); false means it does not.
bool may_answer_to(const LinespecName& parsed, const Symbol& s);

}  // namespace roofprof::symbolizer
