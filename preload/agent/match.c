/* Region patterns against imported symbol names, with the planner's rules
 * (symbolizer/function_match.cpp): a pattern matches when it equals (or, with glob characters,
 * fnmatch-matches) the raw name, the demangled name, or the demangled name without its return
 * type and parameter list ("ns::Solver::step" for "ns::Solver::step(int)"; common/short_name.h,
 * the planner's own implementation). Demangling uses
 * __cxa_demangle when the program has loaded libstdc++ (found with dlsym; the agent itself
 * never links the C++ runtime). roofprof maps what the agent matched back to the planner's
 * regions, so a name matched here but not there is reported, never silently renamed. */
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/short_name.h"
#include "preload/agent/agent.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

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
  int has_short = rp_short_name(d, strlen(d), shortened, sizeof shortened) != (size_t)-1;
  int found = -1;
  for (int i = 0; i < rp.n_patterns && found < 0; ++i)
    if (matches(&rp.patterns[i], d) || (has_short && matches(&rp.patterns[i], shortened)))
      found = (int)rp.patterns[i].spec;
  free(d);
  return found;
}
