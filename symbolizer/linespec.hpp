#pragma once
// Function names the way gdb resolves a linespec ("Linespec Locations" in gdb's manual): a name
// is a list of scopes ("ns", "Solver<double>", "step") and, optionally, a parameter list. A
// pattern matches a function when its scopes are the trailing scopes of the function's name
// (an unqualified name matches in any namespace, class or Fortran module), template arguments
// and the parameter list may be left out, and whitespace does not matter.
//
// A function's compiler clones (gcc's .constprop.N, .isra.N, .part.N, .lto_priv.N,
// .localalias and the demangled " [clone .isra.0]") carry the function's name; a Fortran
// procedure is known by its source name too: gfortran's __mymod_MOD_kernel is mymod::kernel,
// Intel's mymod_mp_kernel_ is mymod::kernel, and an external kernel_ is also kernel.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::symbolizer {

struct Symbol;

struct LinespecName {
  std::vector<std::string> scopes;    // whitespace removed
  std::optional<std::string> params;  // "(double,double)", whitespace removed; none for C names
  bool fortran_external = false;      // "kernel" spelled from "kernel_": used only when nothing else matches
  bool operator==(const LinespecName&) const = default;
};

// A pattern as the user wrote it ("ns::Solver::step", "dot(double, double)", "mymod::kernel").
LinespecName parse_linespec(std::string_view pattern);

// The names a function symbol answers to (clone suffixes and symbol versions removed).
std::vector<LinespecName> linespec_names(const Symbol& s);

// `pattern`'s scopes are the trailing scopes of `name` (a scope without template arguments
// matches one with any), and its parameter list, when it has one, is `name`'s.
bool linespec_matches(const LinespecName& pattern, const LinespecName& name);

// "f.constprop.0" -> "f", "f.part.0.isra.0" -> "f", "double f(int) [clone .isra.0]" -> "double f(int)";
// other names unchanged. Cold fragments ("f.cold") keep their suffix: they are not entries.
std::string strip_clone_suffix(std::string_view name);

// The name roofprof shows (and suggests) for a function: its short name without clone suffix,
// a Fortran module procedure as "mymod::kernel". Always accepted back as a pattern.
std::string display_name(const Symbol& s);

}  // namespace roofprof::symbolizer
