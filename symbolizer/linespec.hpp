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

// A lambda named by where it is written: "main::lambda@prog.cpp:42" (file optional:
// "main::lambda@42"). Its function is gcc's "main::{lambda(int)#1}::operator()(int) const"; the
// line is the lambda expression's (its closure type's DW_AT_decl_line) or the one the line table
// gives the function's first instruction (match_functions checks it).
struct LambdaRef {
  std::string file;  // "" = any file
  unsigned line = 0;
  bool operator==(const LambdaRef&) const = default;
};

struct LinespecName {
  // Whitespace removed. For a lambda (`lambda` set): the scopes of its enclosing function.
  std::vector<std::string> scopes;
  std::optional<std::string> params;  // "(double,double)", whitespace removed; none for C names
  bool fortran_external = false;      // "kernel" spelled from "kernel_": used only when nothing else matches
  std::optional<LambdaRef> lambda;    // "ENCLOSING::lambda@FILE:LINE"
  bool operator==(const LinespecName&) const = default;
};

// A pattern as the user wrote it ("ns::Solver::step", "dot(double, double)", "mymod::kernel").
LinespecName parse_linespec(std::string_view pattern);

// Splits a name at "::" outside <...>, (...), [...] and {...}; operator spellings stay whole.
std::vector<std::string> split_scopes(std::string_view s);

// The names a function symbol answers to (clone suffixes and symbol versions removed).
std::vector<LinespecName> linespec_names(const Symbol& s);

// gfortran "__mymod_MOD_kernel", Intel "mymod_mp_kernel_" -> {"mymod", "kernel"}; nullopt for
// other names.
std::optional<std::vector<std::string>> fortran_module_procedure(std::string_view name);

// `pattern`'s scopes are the trailing scopes of `name` (a scope without template arguments
// matches one with any, a scope without parameters a function scope with any: "run" is
// "run(int)" in "S::run(int)::{lambda()#1}"), and its parameter list, when it has one, is
// `name`'s. A lambda pattern matches every lambda whose enclosing function's trailing scopes are
// the pattern's scopes (the line is checked against the line table, by match_functions).
bool linespec_matches(const LinespecName& pattern, const LinespecName& name);
bool lambda_matches(const LinespecName& pattern, const LinespecName& name);

// "f.constprop.0" -> "f", "f.part.0.isra.0" -> "f", "double f(int) [clone .isra.0]" -> "double f(int)";
// other names unchanged. Cold fragments ("f.cold") keep their suffix: they are not entries.
std::string strip_clone_suffix(std::string_view name);

// The name roofprof shows (and suggests) for a function: its short name without clone suffix,
// a Fortran module procedure as "mymod::kernel". Always accepted back as a pattern.
std::string display_name(const Symbol& s);

}  // namespace roofprof::symbolizer
