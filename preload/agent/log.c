/* The agent's side of roofprof's debug log (common/log_format.h): ROOFPROF_LOG with "agent" (or
 * "all") logs the agent's decisions, to ROOFPROF_LOG_FILE (appended, beside roofprof's own
 * lines) or stderr. Read once at start; off, a call site costs one branch (RP_TRACE). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "common/log_format.h"
#include "preload/agent/agent.h"

void rp_trace_init(void) {
  unsigned mask = 0;
  const char *bad;
  size_t bad_len;
  rp.log_on = 0;
  /* An unknown category was roofprof's one-line error already: here it only means no log. */
  if (rp_log_parse(getenv(RP_ENV_LOG), &mask, &bad, &bad_len) != 0 || !(mask & RP_LOG_AGENT)) return;
  rp.log_fd = rp_log_open(getenv(RP_ENV_LOG_FILE));
  rp.log_on = rp.log_fd >= 0;
}

void rp_trace(const char *fmt, ...) {
  char text[RP_LOG_LINE_MAX], line[RP_LOG_LINE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
  size_t out = rp_log_format(line, sizeof line, rp_log_now_ns(), "roofprof-agent", (int)rp.pid, RP_LOG_AGENT, text, len);
  rp_syscall6(SYS_write, rp.log_fd, (long)line, (long)out, 0, 0, 0);
}
