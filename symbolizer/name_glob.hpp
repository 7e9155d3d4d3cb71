#pragma once
// Globs over function names ('NPair*::build', 'PairLJCut::*', 'fftw_execute*').
//
// '*', '?' and '[...]' are wildcards only outside a parameter list: inside one, and in operator
// spellings ("operator*", "operator[]"), ABI tags ("[abi:cxx11]") and clone suffixes
// (" [clone .isra.0]"), they are the characters themselves, so "scale(float*,int)" is a
// signature, not a glob. Like a plain name (symbolizer/linespec.hpp), a glob matches at any
// scope: it matches a function when it matches the function's name or the name's trailing
// scopes ('NPair*::build' matches LAMMPS_NS::NPairHalf::build), with or without the parameter
// list, whitespace ignored.
#include <string>
#include <string_view>

namespace roofprof::symbolizer {

struct Symbol;

// True when `pattern` has a wildcard (outside parameter lists and operator spellings).
bool is_glob(std::string_view pattern);

// `pattern` (is_glob) matches `s` at some scope.
bool glob_matches(std::string_view pattern, const Symbol& s);

// `pattern` as an fnmatch(3) pattern: spaces removed, literal '*', '?', '[', ']' and '\'
// escaped; `*wild` says whether anything is left a wildcard.
std::string fnmatch_pattern(std::string_view pattern, bool* wild = nullptr);

}  // namespace roofprof::symbolizer
