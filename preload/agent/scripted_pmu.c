/* The agent's scripted PMU (test builds only, ROOFPROF_TEST_SEAMS): with
 * ROOFPROF_AGENT_SCRIPTED_PMU=<file>, the hardware (timed) groups of the run are not opened in
 * the kernel; this file plays the kernel's part for them, so that the agent's real read path
 * (preload/pmc_page.h through counters.c, and its read(2) fallback) runs on a machine without a
 * PMU: each group has a perf_event_mmap_page per event that this file updates as the kernel does
 * (perf_event_update_userpage: index, offset = count - prev_count, times, time_offset), a live
 * counter `pmc_width` bits wide that the stand-in for rdpmc returns, and a TSC at 2 GHz.
 *
 * Script lines (`#` starts a comment; TYPE a number or hw, sw, raw; CONFIG a number, 0x..):
 *   caps RDPMC TIME          cap_user_rdpmc and cap_user_time of the pages (default 1 1)
 *   width BITS               pmc_width (default 48)
 *   inherit 0|1              0: opening an inherited hardware group fails (ENOENT), so that a
 *                            test sees where the process's counts came from (default 1)
 *   count TYPE CONFIG N1 ... the event occurs N(k mod n) times in step k of its group
 *   steps S1 S2 ...          step k of every group is S(k mod n): F or F/out: the group holds
 *                            its counters for the share F of the step (it counts round(N F) of
 *                            the step's N), and /out: it is off them when the step ends (a
 *                            read then finds index 0). Default 1.
 * A group's k-th read (from 0) is its k-th step: 1000 ns of enabled time; the step happens
 * inside that read, at its first rdtsc (so a rotation it makes moves the page's seqlock under
 * the reader, which must retry) or at its read(2), whichever comes first (counters.c announces
 * each read with rp_scripted_source). Counters start at -(2^(width-1) - 1), as
 * the kernel programs a counting event, so the values rdpmc returns are negative until
 * sign-extended. */
#ifdef ROOFPROF_TEST_SEAMS

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "preload/agent/agent.h"
#include "preload/env_format.h"
#include "preload/pmc_page.h"

#define RP_SCRIPT_RULES 32
#define RP_SCRIPT_VALUES 16
#define RP_TSC_SHIFT 10
#define RP_TSC_MULT 512 /* ns = cycles * 512 >> 10: 2 cycles a ns */
#define RP_STEP_NS 1000

struct rule {
  uint32_t type;
  uint64_t config;
  int n;
  uint64_t values[RP_SCRIPT_VALUES];
};

struct step {
  uint32_t share_milli; /* F x 1000 */
  int out;
};

static struct {
  int active;
  int rdpmc, time, inherit;
  uint16_t width;
  struct rule counts[RP_SCRIPT_RULES];
  int n_counts;
  struct step steps[RP_SCRIPT_VALUES];
  int n_steps;
} script = {0, 1, 1, 1, 48, {{0}}, 0, {{1000, 0}}, 1};

struct group {
  int g; /* in rp.groups */
  int n;
  int on, pending;
  uint64_t steps;
  uint64_t tsc, enabled, running;
  uint64_t pmc[RP_MAX_EVENTS];    /* the live counters, `width` bits */
  int64_t prev[RP_MAX_EVENTS];    /* hw.prev_count: the counter's value (sign-extended) when programmed */
  uint64_t count[RP_MAX_EVENTS];  /* event->count: what was counted up to the last update */
  struct perf_event_mmap_page *pages; /* n of them, 4 KiB each (NULL: an inherited group) */
  struct rp_pmc_source source;
};

int rp_scripted_active(void) { return script.active; }

static uint64_t mask(void) { return script.width >= 64 ? ~0ull : ((uint64_t)1 << script.width) - 1; }

static int parse_number(const char **p, uint64_t *out) {
  while (**p == ' ' || **p == '\t') ++*p;
  char *end;
  if (strncmp(*p, "hw", 2) == 0 && ((*p)[2] == ' ' || (*p)[2] == '\t')) { *out = PERF_TYPE_HARDWARE; *p += 2; return 1; }
  if (strncmp(*p, "sw", 2) == 0 && ((*p)[2] == ' ' || (*p)[2] == '\t')) { *out = PERF_TYPE_SOFTWARE; *p += 2; return 1; }
  if (strncmp(*p, "raw", 3) == 0 && ((*p)[3] == ' ' || (*p)[3] == '\t')) { *out = PERF_TYPE_RAW; *p += 3; return 1; }
  *out = strtoull(*p, &end, 0);
  if (end == *p) return 0;
  *p = end;
  return 1;
}

/* One line (NUL-terminated, comment removed); 0 when malformed. */
static int parse_line(const char *p) {
  while (*p == ' ' || *p == '\t') ++p;
  if (!*p) return 1;
  uint64_t a, b;
  if (strncmp(p, "caps", 4) == 0) {
    p += 4;
    if (!parse_number(&p, &a) || !parse_number(&p, &b)) return 0;
    script.rdpmc = a != 0;
    script.time = b != 0;
  } else if (strncmp(p, "inherit", 7) == 0) {
    p += 7;
    if (!parse_number(&p, &a)) return 0;
    script.inherit = a != 0;
  } else if (strncmp(p, "width", 5) == 0) {
    p += 5;
    if (!parse_number(&p, &a) || a < 8 || a > 64) return 0;
    script.width = (uint16_t)a;
  } else if (strncmp(p, "count", 5) == 0) {
    p += 5;
    if (script.n_counts == RP_SCRIPT_RULES) return 0;
    struct rule *r = &script.counts[script.n_counts];
    if (!parse_number(&p, &a) || !parse_number(&p, &r->config)) return 0;
    r->type = (uint32_t)a;
    r->n = 0;
    while (r->n < RP_SCRIPT_VALUES && parse_number(&p, &r->values[r->n])) r->n++;
    if (r->n == 0) return 0;
    script.n_counts++;
  } else if (strncmp(p, "steps", 5) == 0) {
    p += 5;
    script.n_steps = 0;
    for (;;) {
      while (*p == ' ' || *p == '\t') ++p;
      if (!*p) break;
      if (script.n_steps == RP_SCRIPT_VALUES) return 0;
      char *end;
      /* F as a decimal fraction in thousandths, without floating point (-mgeneral-regs-only) */
      uint64_t whole = strtoull(p, &end, 10), milli = 0;
      if (end == p && *p != '.') return 0;
      p = end;
      if (*p == '.') {
        ++p;
        for (int d = 0, scale = 100; d < 3 && *p >= '0' && *p <= '9'; ++d, scale /= 10) milli += (uint64_t)(*p++ - '0') * scale;
      }
      struct step *s = &script.steps[script.n_steps++];
      s->share_milli = (uint32_t)(whole * 1000 + milli);
      s->out = strncmp(p, "/out", 4) == 0;
      if (s->out) p += 4;
      if (s->share_milli > 1000 || (s->share_milli == 0 && !s->out)) return 0;
    }
    if (script.n_steps == 0) return 0;
  } else {
    return 0;
  }
  return 1;
}

int rp_scripted_load(void) {
  const char *path = getenv(RP_ENV_AGENT_SCRIPTED_PMU);
  if (!path || !*path) return 0;
  static char text[16384];
  long fd = rp_syscall6(SYS_open, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
  long n = fd < 0 ? -1 : rp_syscall6(SYS_read, fd, (long)text, sizeof text - 1, 0, 0, 0);
  if (fd >= 0) rp_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
  if (n < 0) {
    rp_log("ROOFPROF_AGENT_SCRIPTED_PMU: cannot read %s; agent off", path);
    return -1;
  }
  text[n] = '\0';
  int lineno = 0;
  for (char *line = text; line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    ++lineno;
    if (!parse_line(line)) {
      rp_log("%s:%d: malformed line (caps, inherit, width, count, steps); agent off", path, lineno);
      return -1;
    }
    line = nl ? nl + 1 : NULL;
  }
  script.active = 1;
  return 1;
}

static uint64_t scripted_count(const struct rp_event *e, uint64_t step) {
  for (int i = 0; i < script.n_counts; ++i) {
    const struct rule *r = &script.counts[i];
    if (r->type == e->type && r->config == e->config) return r->values[step % (uint64_t)r->n];
  }
  return 0;
}

/* ns of a TSC value, as the page's time_mult/time_shift say (time_offset 0). */
static uint64_t ns_of(uint64_t cyc) {
  return (cyc >> RP_TSC_SHIFT) * RP_TSC_MULT + (((cyc & ((1u << RP_TSC_SHIFT) - 1)) * RP_TSC_MULT) >> RP_TSC_SHIFT);
}

/* Member k's page: one 4 KiB page each, as the kernel maps them. */
static struct perf_event_mmap_page *page_of(struct group *s, int k) {
  return (struct perf_event_mmap_page *)((char *)s->pages + 4096L * k);
}

/* perf_event_update_userpage: every member's page, under its seqlock. */
static void update_pages(struct group *s) {
  if (!s->pages) return;
  for (int k = 0; k < s->n; ++k) {
    volatile struct perf_event_mmap_page *pc = page_of(s, k);
    pc->lock++;
    RP_PMC_BARRIER();
    pc->index = s->on ? (uint32_t)(k + 2) : 0; /* member k on counter k + 1 */
    pc->offset = (int64_t)(s->count[k] - (s->on ? (uint64_t)s->prev[k] : 0));
    pc->time_enabled = s->enabled;
    pc->time_running = s->running;
    pc->time_offset = 0 - ns_of(s->tsc);
    RP_PMC_BARRIER();
    pc->lock++;
  }
}

static void rotate(struct group *s, int in) {
  for (int k = 0; k < s->n; ++k) {
    if (in) {
      s->pmc[k] = (0 - (((uint64_t)1 << (script.width - 1)) - 1)) & mask();
      s->prev[k] = rp_pmc_sign_extend(s->pmc[k], script.width);
    } else {
      s->count[k] += (uint64_t)(rp_pmc_sign_extend(s->pmc[k], script.width) - s->prev[k]);
    }
  }
  s->on = in;
  update_pages(s);
}

static void run_for(struct group *s, uint64_t ns) {
  s->tsc += 2 * ns;
  s->enabled += ns;
  if (s->on) s->running += ns;
}

/* The step's counting: round(N F) of each member's N for this step. */
static void count_step(struct group *s, uint32_t share_milli) {
  for (int k = 0; k < s->n; ++k) {
    const uint64_t n = scripted_count(&rp.events[rp.groups[s->g].first + k], s->steps);
    s->pmc[k] = (s->pmc[k] + (n * share_milli + 500) / 1000) & mask();
  }
}

/* Step s->steps, as the script says (see the top): the group holds its counters for on_ns of
 * it, in one stretch, and ends the step off them with /out. */
static void step(struct group *s) {
  const struct step *st = &script.steps[s->steps % (uint64_t)script.n_steps];
  const uint64_t on_ns = (uint64_t)st->share_milli * RP_STEP_NS / 1000;
  if (on_ns == 0) {
    if (s->on) rotate(s, 0);
    run_for(s, RP_STEP_NS);
  } else if (s->on) {
    count_step(s, st->share_milli);
    run_for(s, on_ns);
    if (on_ns < RP_STEP_NS || st->out) rotate(s, 0);
    run_for(s, RP_STEP_NS - on_ns);
    if (on_ns < RP_STEP_NS && !st->out) rotate(s, 1);
  } else {
    run_for(s, RP_STEP_NS - on_ns);
    rotate(s, 1);
    count_step(s, st->share_milli);
    run_for(s, on_ns);
    if (st->out) rotate(s, 0);
  }
  s->steps++;
}

static uint64_t scripted_rdtsc(void *ctx) {
  struct group *s = ctx;
  if (s->pending) {
    s->pending = 0;
    step(s);
  }
  return s->tsc;
}

static uint64_t scripted_rdpmc(void *ctx, uint32_t counter) {
  struct group *s = ctx;
  if (counter >= 1 && (int)counter <= s->n && s->on) return s->pmc[counter - 1];
  return 0x5a5a5a5a5a5aull; /* a counter another event holds now: what it counts is not ours */
}

void *rp_scripted_open(int g, int inherit, struct perf_event_mmap_page **pages) {
  if (inherit && !script.inherit) return NULL;
  long m = rp_syscall6(SYS_mmap, 0, sizeof(struct group), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m < 0 && m > -4096) return NULL;
  struct group *s = (struct group *)m;
  s->g = g;
  s->n = rp.groups[g].count;
  s->tsc = (uint64_t)1 << 40; /* a TSC far from 0: time_offset wraps, as on a machine up for a while */
  s->source.rdpmc = scripted_rdpmc;
  s->source.rdtsc = scripted_rdtsc;
  s->source.ctx = s;
  if (!inherit) {
    long p = rp_syscall6(SYS_mmap, 0, 4096L * s->n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p < 0 && p > -4096) {
      rp_syscall6(SYS_munmap, m, sizeof(struct group), 0, 0, 0, 0);
      return NULL;
    }
    s->pages = (struct perf_event_mmap_page *)p;
    for (int k = 0; k < s->n; ++k) {
      struct perf_event_mmap_page *pc = page_of(s, k);
      pc->cap_user_rdpmc = (uint64_t)script.rdpmc;
      pc->cap_user_time = (uint64_t)script.time;
      pc->pmc_width = script.width;
      pc->time_shift = RP_TSC_SHIFT;
      pc->time_mult = RP_TSC_MULT;
      pages[k] = pc;
    }
  }
  rotate(s, 1); /* enabled on the running thread: on its counters at once */
  return s;
}

void rp_scripted_close(void *group) {
  struct group *s = group;
  if (s->pages) rp_syscall6(SYS_munmap, (long)s->pages, 4096L * s->n, 0, 0, 0, 0);
  rp_syscall6(SYS_munmap, (long)s, sizeof *s, 0, 0, 0, 0);
}

const struct rp_pmc_source *rp_scripted_source(void *group) {
  struct group *s = group;
  s->pending = 1; /* a read starts: its step happens at its first rdtsc or at its read(2) */
  return &s->source;
}

long rp_scripted_read(void *group, uint64_t *buf, size_t bytes) {
  struct group *s = group;
  if (bytes < (size_t)(3 + s->n) * sizeof(uint64_t)) return -ENOSPC;
  if (s->pages && script.rdpmc && script.time) return -EPERM; /* the page path was not taken: a test sees it */
  if (s->pending) { /* not yet at an rdtsc of this read (the page path gave up before or after it) */
    s->pending = 0;
    step(s);
  }
  buf[0] = (uint64_t)s->n;
  buf[1] = s->enabled;
  buf[2] = s->running;
  for (int k = 0; k < s->n; ++k)
    buf[3 + k] = s->count[k] + (s->on ? (uint64_t)(rp_pmc_sign_extend(s->pmc[k], script.width) - s->prev[k]) : 0);
  return (long)((3 + s->n) * sizeof(uint64_t));
}

#endif
