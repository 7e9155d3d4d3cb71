/* common/log_format.h: one implementation, compiled into the agent and into roofprof_common. */
#include "common/log_format.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const names[] = {"tracer", "counters", "agent", "emul"};
#define N_NAMES (sizeof names / sizeof names[0])

const char *rp_log_category_name(unsigned category) {
  for (size_t i = 0; i < N_NAMES; ++i)
    if (category == 1u << i) return names[i];
  return "?";
}

static int word_is(const char *w, size_t n, const char *name) { return strlen(name) == n && memcmp(w, name, n) == 0; }

int rp_log_parse(const char *spec, unsigned *mask, const char **bad, size_t *bad_len) {
  *mask = 0;
  for (const char *w = spec; w && *w;) {
    size_t n = strcspn(w, ",");
    unsigned bit = 0;
    if (word_is(w, n, "all")) bit = RP_LOG_ALL;
    for (size_t i = 0; i < N_NAMES && !bit; ++i)
      if (word_is(w, n, names[i])) bit = 1u << i;
    if (!bit && n > 0) {
      *bad = w;
      *bad_len = n;
      return -1;
    }
    *mask |= bit;
    w += n;
    if (*w == ',') ++w;
  }
  return 0;
}

int rp_log_open(const char *path) {
  if (!path || !*path) return 2;
  return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

size_t rp_log_format(char *line, size_t cap, uint64_t mono_ns, const char *who, int pid, unsigned category,
                     const char *text, size_t text_len) {
  if (cap < 2) return 0;
  int n = snprintf(line, cap - 1, "%llu.%06llu %s[%d] %s: %.*s", (unsigned long long)(mono_ns / 1000000000u),
                   (unsigned long long)(mono_ns % 1000000000u / 1000u), who, pid, rp_log_category_name(category),
                   (int)text_len, text);
  size_t len = n < 0 ? 0 : (size_t)n > cap - 2 ? cap - 2 : (size_t)n;
  line[len++] = '\n';
  return len;
}

uint64_t rp_log_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
