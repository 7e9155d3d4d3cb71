/* The agent's variables leave the environment of processes roofprof does not follow: without
 * --follow-fork, a fork child of the measured process (and any process the agent finds itself
 * in without being asked to measure it) drops ROOFPROF_AGENT_* and the agent's entry of
 * LD_PRELOAD before it can exec, so its descendants run exactly as without roofprof (no
 * agent, no "wrong ELF class" error from the loader of a 32-bit child). Done in place on
 * `environ` (no allocation, no lock: this runs in a fork child). */
#include <string.h>

#include "preload/agent/agent.h"
#include "preload/env_format.h"

extern char **environ;

static int is_agent_path(const char *s, size_t n) {
  static const char kName[] = "libroofprof-preload.so";
  const size_t k = sizeof kName - 1;
  if (n < k || memcmp(s + n - k, kName, k) != 0) return 0;
  return n == k || s[n - k - 1] == '/';
}

/* "LD_PRELOAD=a:AGENT b" -> "LD_PRELOAD=a b" (separators ':' and ' ', as ld.so reads them),
 * rewritten in its own storage. Returns 1 when nothing is left. */
static int strip_preload(char *entry) {
  char *list = entry + sizeof "LD_PRELOAD=" - 1;
  char *out = list;
  int first = 1;
  for (char *p = list; *p;) {
    size_t n = strcspn(p, ": ");
    char sep = p[n];
    if (n && !is_agent_path(p, n)) {
      if (!first) *out++ = ':';
      memmove(out, p, n);
      out += n;
      first = 0;
    }
    p += n;
    if (sep) ++p;
  }
  *out = '\0';
  return first;
}

void rp_environ_strip(void) {
  if (!environ) return;
  char **w = environ;
  for (char **r = environ; *r; ++r) {
    if (strncmp(*r, RP_ENV_AGENT_PREFIX, sizeof RP_ENV_AGENT_PREFIX - 1) == 0) continue;
    if (strncmp(*r, "LD_PRELOAD=", 11) == 0 && strip_preload(*r)) continue;
    *w++ = *r;
  }
  *w = NULL;
}
