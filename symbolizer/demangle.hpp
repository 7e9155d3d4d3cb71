#pragma once
// C++ name helpers: demangling, the short form used for matching and display, and
// symbol version suffixes.
#include <string>
#include <string_view>

namespace roofprof::symbolizer {

// The demangled form of an Itanium-mangled name ("_Z..."), or `name` itself.
std::string demangle(std::string_view name);

// A demangled function name without its return type, parameter list and cv/ref qualifiers:
// "int ns::add<int>(int, int)" -> "ns::add<int>", "ns::S::get() const" -> "ns::S::get".
// ABI tags are dropped: "ns::name[abi:cxx11]() const" -> "ns::name".
// Clone suffixes are kept ("f(int) [clone .cold]" -> "f [clone .cold]") so that compiler
// fragments never look like the function itself. Names without a parameter list are returned
// unchanged.
std::string short_name(std::string_view demangled);

// "memcpy@@GLIBC_2.14" -> "memcpy", "foo@VERS_1" -> "foo".
std::string_view strip_version(std::string_view name);

// At s[i] of an "operator" keyword, the index just past the operator's own spelling
// ("operator<<", "operator()", "operator new[]", "operator unsigned long"); i when s[i] does not
// begin the keyword.
size_t skip_operator(std::string_view s, size_t i);

// True for compiler-split cold fragments ("f.cold", "f(int) [clone .cold]"): not a function entry.
bool is_cold_fragment(std::string_view name);

}  // namespace roofprof::symbolizer
