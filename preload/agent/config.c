/* The agent's configuration, read once from the environment roofprof sets (docs/preload.md):
 *   ROOFPROF_AGENT_DIR         directory for the record files (required: no agent without it)
 *   ROOFPROF_AGENT_REGIONS     one "SPEC:PATTERN" per line (SPEC: spec index in roofprof)
 *   ROOFPROF_AGENT_SCOPE       process | thread
 *   ROOFPROF_AGENT_EVENTS      perf groups of "TYPE:CONFIG[:CONFIG1[:FLAGS]]" (record_format.h;
 *                              empty: time only)
 *   ROOFPROF_AGENT_USER_LEVEL  1: count without the kernel side (exclude_kernel), as an
 *                              unprivileged user must at perf_event_paranoid >= 2
 *   ROOFPROF_AGENT_PID         the process roofprof started
 *   ROOFPROF_AGENT_FOLLOW_FORK 1: other processes (fork children, exec'd children) record too
 *   ROOFPROF_AGENT_CONSUMER    pid of the process draining the ring (0: nobody)
 *   ROOFPROF_AGENT_RING        ring slots per process (power of two, default 65536)
 *   ROOFPROF_AGENT_EVICT_BYTES evict the caches with a buffer this big before each outermost
 *                              hooked call (--cache-state cold; evict.c); 0 or unset: warm
 *   ROOFPROF_AGENT_EMUL        1: inside roofprof's valgrind tool: boundaries are client
 *                              requests (emul.c); no record file (ROOFPROF_AGENT_DIR unused),
 *                              no perf counters
 *   ROOFPROF_AGENT_DEBUG       1: log hooks to stderr
 *   ROOFPROF_AGENT_SCRIPTED_PMU  test builds (ROOFPROF_TEST_SEAMS) only: a script that stands in
 *                              for the kernel's hardware groups (scripted_pmu.c)
 *   ROOFPROF_AGENT_SITES       1: hook only the functions listed in DIR/PID.sites (combined mode)
 *   ROOFPROF_AGENT_CALLERS     1: entry records carry the call's return address (--group-by caller)
 *   ROOFPROF_AGENT_CHEAP_FACTOR counters only on regions whose calls last this many times what
 *                              the counters add to a call or more (record_format.h); 0 or
 *                              unset: counters on every call */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/agent/agent.h"
#include "preload/env_format.h"

static long env_long(const char *name, long fallback) {
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  char *end;
  long x = strtol(v, &end, 10);
  return *end ? fallback : x;
}

static int parse_patterns(const char *text) {
  while (text && *text) {
    const char *nl = strchr(text, '\n');
    size_t len = nl ? (size_t)(nl - text) : strlen(text);
    const char *colon = memchr(text, ':', len);
    if (colon && colon > text) {
      /* The array grows with the specs (doubling when full). */
      static size_t cap;
      if ((size_t)rp.n_patterns == cap) {
        size_t want = cap ? 2 * cap : 16;
        struct rp_pattern *grown = realloc(rp.patterns, want * sizeof *grown);
        if (!grown) return -1;
        rp.patterns = grown;
        cap = want;
      }
      struct rp_pattern *p = &rp.patterns[rp.n_patterns];
      p->spec = (uint32_t)strtoul(text, NULL, 10);
      p->text = strndup(colon + 1, len - (size_t)(colon + 1 - text));
      if (!p->text) return -1;
      p->glob = strpbrk(p->text, "*?[") != NULL;
      if (*p->text) rp.n_patterns++;
    } else if (len) {
      rp_log("ignoring malformed region line '%.*s'", (int)len, text);
    }
    text = nl ? nl + 1 : NULL;
  }
  return 0;
}

/* ROOFPROF_AGENT_EVENTS (record_format.h): groups of "TYPE:CONFIG[:CONFIG1[:FLAGS]]". */
static int parse_events(const char *text) {
  int group_start = 1;
  while (text && *text) {
    char *end;
    if (rp.n_events >= RP_MAX_EVENTS) return -1;
    struct rp_event *e = &rp.events[rp.n_events];
    e->type = (uint32_t)strtoul(text, &end, 10);
    if (*end != ':') return -1;
    e->config = strtoull(end + 1, &end, 10);
    e->config1 = 0;
    e->flags = rp.user_level ? RP_EVENT_EXCLUDE_KERNEL : 0;
    if (*end == ':') e->config1 = strtoull(end + 1, &end, 10);
    if (*end == ':') e->flags = (uint32_t)strtoul(end + 1, &end, 10);
    if (*end != RP_EVENTS_EVENT_SEP && *end != RP_EVENTS_GROUP_SEP && *end != '\0') return -1;
    if (group_start) {
      if (rp.n_groups >= RP_MAX_GROUPS) return -1;
      struct rp_group *g = &rp.groups[rp.n_groups++];
      g->first = rp.n_events;
      g->count = 0;
      g->timed = RP_GROUP_TIMED(e->type);
      g->timed_index = g->timed ? rp.n_times / 2 : -1;
      if (g->timed) {
        if (rp.n_times / 2 >= RP_MAX_TIMED_GROUPS) return -1;
        rp.n_times += 2;
      }
    }
    rp.groups[rp.n_groups - 1].count++;
    rp.n_events++;
    group_start = *end == RP_EVENTS_GROUP_SEP;
    text = *end ? end + 1 : NULL;
  }
  rp.n_values = rp.n_events + rp.n_times;
  return 0;
}

int rp_config_read(void) {
  rp.emul = env_long(RP_ENV_AGENT_EMUL, 0) != 0;
  const char *dir = getenv(RP_ENV_AGENT_DIR);
  if (!rp.emul) {
    if (!dir || !*dir || strlen(dir) >= sizeof rp.dir) return -1;
    strcpy(rp.dir, dir);
  }
  rp.debug = env_long(RP_ENV_AGENT_DEBUG, 0) != 0;
  long evict = env_long(RP_ENV_AGENT_EVICT_BYTES, 0);
  rp.evict_bytes = evict > 0 ? (size_t)evict : 0;
  rp.sites_only = env_long(RP_ENV_AGENT_SITES, 0) != 0;
  rp.callers = env_long(RP_ENV_AGENT_CALLERS, 0) != 0;
  long cheap = env_long(RP_ENV_AGENT_CHEAP_FACTOR, 0);
  rp.cheap_factor = cheap > 0 && cheap < 1000000 ? (uint32_t)cheap : 0;
  rp.user_level = env_long(RP_ENV_AGENT_USER_LEVEL, 0) != 0;
  rp.follow_fork = env_long(RP_ENV_AGENT_FOLLOW_FORK, 0) != 0;
  rp.measured_pid = (pid_t)env_long(RP_ENV_AGENT_PID, 0);
  rp.consumer_pid = (pid_t)env_long(RP_ENV_AGENT_CONSUMER, 0);
  const char *scope = getenv(RP_ENV_AGENT_SCOPE);
  rp.scope = scope && strcmp(scope, RP_ENV_AGENT_SCOPE_THREAD) == 0 ? RP_SCOPE_THREAD : RP_SCOPE_PROCESS;
  long slots = env_long(RP_ENV_AGENT_RING, RP_DEFAULT_RING_SLOTS);
  if (slots < 16 || (slots & (slots - 1)) != 0 || slots > (1L << 24)) {
    rp_log("ROOFPROF_AGENT_RING must be a power of two in [16, 2^24]; using %u", RP_DEFAULT_RING_SLOTS);
    slots = RP_DEFAULT_RING_SLOTS;
  }
  rp.ring_slots = (uint64_t)slots;
  if (parse_events(getenv(RP_ENV_AGENT_EVENTS)) != 0) {
    rp_log("bad ROOFPROF_AGENT_EVENTS (want groups of TYPE:CONFIG[:CONFIG1[:FLAGS]], at most %d events, %d groups); agent off",
           RP_MAX_EVENTS, RP_MAX_GROUPS);
    return -1;
  }
  if (parse_patterns(getenv(RP_ENV_AGENT_REGIONS)) != 0) return -1;
#ifdef ROOFPROF_TEST_SEAMS
  if (rp_scripted_load() < 0) return -1;
#endif
  /* Only the process roofprof started, unless child processes are followed. */
  if (!rp.follow_fork && rp.measured_pid != 0 && rp.measured_pid != rp.pid) return -1;
  return 0;
}
