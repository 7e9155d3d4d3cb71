/* Functions the in-process agent must not measure, for the agent (C) and roofprof (C++) alike
 * (docs/preload.md, "What the agent cannot see"). */
#ifndef ROOFPROF_PRELOAD_PROBE_RULES_H
#define ROOFPROF_PRELOAD_PROBE_RULES_H

#include <string.h>

/* Whether the function `name` saves its return address to come back through it later (the
 * setjmp family, getcontext and swapcontext) or returns twice on one stack (vfork). The agent
 * replaces a measured call's return address with its exit stub, whose shadow-stack frame is
 * gone by the second return: such a function keeps a breakpoint (or, with --no-ptrace, is not
 * measured). */
static inline int rp_keeps_return_address(const char *name) {
  return strstr(name, "setjmp") != NULL || strstr(name, "getcontext") != NULL ||
         strstr(name, "swapcontext") != NULL || strstr(name, "vfork") != NULL;
}

#endif
