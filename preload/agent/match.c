/* Region patterns against imported symbol names, with the planner's rules
 * (symbolizer/function_match.cpp): a pattern matches when it equals (or, with glob characters,
 * fnmatch-matches) the raw name, the demangled name, or the demangled name without its return
 * type and parameter list ("ns::Solver::step" for "ns::Solver::step(int)"). Demangling uses
 * __cxa_demangle when the program has loaded libstdc++ (found with dlsym; the agent itself
 * never links the C++ runtime). roofprof maps what the agent matched back to the planner's
 * regions, so a name matched here but not there is reported, never silently renamed. */
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "preload/agent/agent.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* At s[i] == 'o': index past an "operator" keyword and its spelling, or i when it is not one. */
static size_t skip_operator(const char *s, size_t n, size_t i) {
  static const char kw[] = "operator";
  const size_t k = sizeof kw - 1;
  if (n - i < k || strncmp(s + i, kw, k) != 0) return i;
  if (i > 0 && ident_char(s[i - 1])) return i;
  size_t j = i + k;
  if (j < n && ident_char(s[j])) return i;
  if (j + 1 < n && s[j] == ' ') { /* operator new, operator delete[] */
    for (const char *w = "new"; w; w = (w[0] == 'n' ? "delete" : NULL)) {
      size_t wl = strlen(w);
      if (n - (j + 1) >= wl && strncmp(s + j + 1, w, wl) == 0) {
        size_t e = j + 1 + wl;
        if (e + 1 < n && s[e] == '[' && s[e + 1] == ']') e += 2;
        return e;
      }
    }
  }
  if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']'))) return j + 2;
  while (j < n && strchr("+-*/%^&|~!=<>,", s[j])) ++j;
  if (j + 1 < n && s[j] == ' ' && s[j + 1] == '<') ++j;
  return j;
}

/* "void ns::f<int>(int) const" -> "ns::f<int>" (into out); 0 when there is no parameter list. */
static int short_name(const char *s, char *out, size_t cap) {
  size_t n = strlen(s);
  int depth = 0;
  size_t last_open = (size_t)-1, last_close = (size_t)-1, space_before_open = (size_t)-1, last_space = (size_t)-1;
  for (size_t i = 0; i < n;) {
    char c = s[i];
    if (c == 'o') {
      size_t j = skip_operator(s, n, i);
      if (j != i) {
        i = j;
        continue;
      }
    }
    if (c == '(' || c == '<' || c == '[' || c == '{') {
      if (depth == 0 && c == '(') {
        last_open = i;
        space_before_open = last_space;
      }
      ++depth;
    } else if (c == ')' || c == '>' || c == ']' || c == '}') {
      if (depth > 0) --depth;
      if (depth == 0 && c == ')') last_close = i;
    } else if (c == ' ' && depth == 0) {
      last_space = i;
    }
    ++i;
  }
  if (last_open == (size_t)-1 || last_close == (size_t)-1 || last_close < last_open || last_open == 0) return 0;
  for (const char *q = s + last_close + 1; *q; ++q) /* only qualifiers may follow */
    if (!strchr(" constvolatile&noexceptrestrict", *q)) return 0;
  size_t begin = space_before_open == (size_t)-1 ? 0 : space_before_open + 1;
  size_t len = last_open - begin;
  if (len + 1 > cap) return 0;
  size_t o = 0;
  for (size_t i = begin; i < last_open; ++i) { /* drop ABI tags: "f[abi:cxx11]" -> "f" */
    if (s[i] == '[' && strncmp(s + i, "[abi:", 5) == 0) {
      const char *close = memchr(s + i, ']', last_open - i);
      if (close) {
        i = (size_t)(close - s);
        continue;
      }
    }
    out[o++] = s[i];
  }
  out[o] = '\0';
  return 1;
}

static int matches(const struct rp_pattern *p, const char *name) {
  return p->glob ? fnmatch(p->text, name, 0) == 0 : strcmp(p->text, name) == 0;
}

int rp_match(const char *symbol) {
  for (int i = 0; i < rp.n_patterns; ++i)
    if (matches(&rp.patterns[i], symbol)) return (int)rp.patterns[i].spec;
  if (symbol[0] != '_' || symbol[1] != 'Z') return -1;
  demangle_fn demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
  if (!demangle) return -1;
  int status = 0;
  char *d = demangle(symbol, NULL, NULL, &status);
  if (!d || status != 0) {
    free(d);
    return -1;
  }
  char shortened[1024];
  int has_short = short_name(d, shortened, sizeof shortened);
  int found = -1;
  for (int i = 0; i < rp.n_patterns && found < 0; ++i)
    if (matches(&rp.patterns[i], d) || (has_short && matches(&rp.patterns[i], shortened)))
      found = (int)rp.patterns[i].spec;
  free(d);
  return found;
}
