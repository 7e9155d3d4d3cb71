/* The short form of a demangled C++ function name, defined once for both sides: the C agent
 * (preload/agent/match.c) matches region patterns against it, the C++ planner
 * (symbolizer/demangle.hpp's short_name) names functions with it, so both read a pattern the
 * same way. Plain C with no allocation: the agent links libc only.
 *
 * "int ns::add<int>(int, int)" -> "ns::add<int>", "ns::S::get() const" -> "ns::S::get";
 * ABI tags dropped ("ns::name[abi:cxx11]() const" -> "ns::name"); clone suffixes kept
 * ("f(int) [clone .cold]" -> "f [clone .cold]") so that compiler fragments never look like the
 * function itself. */
#ifndef ROOFPROF_COMMON_SHORT_NAME_H
#define ROOFPROF_COMMON_SHORT_NAME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* At s[i] of an "operator" keyword (s has n bytes), the index just past the operator's own
 * spelling ("operator<<", "operator()", "operator new[]", "operator unsigned long"); i when s[i]
 * does not begin the keyword. */
size_t rp_skip_operator(const char *s, size_t n, size_t i);

/* The short name of the demangled name s (n bytes) into out (cap bytes, NUL-terminated): its
 * length, or (size_t)-1 when s has no parameter list followed only by qualifiers (the name is
 * its own short form) or out is too small. A short name is never longer than s: cap = n + 1
 * always suffices. */
size_t rp_short_name(const char *s, size_t n, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
