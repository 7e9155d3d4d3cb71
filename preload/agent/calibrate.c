/* What one boundary of the agent costs, measured once at start in the process roofprof
 * started (docs/preload.md, "What a boundary costs"): RP_CALIBRATION_CALLS calls of an empty
 * function through the whole path of a patched one (trampoline.S, rp_calibrate_call), with the
 * run's counters. Their records (region RP_CALIBRATION_REGION) give roofprof the part of each
 * call that falls inside an instance; the table line "C <calls> <ns>" the whole cost of the
 * calls, timed around the loop. */
#include "preload/agent/agent.h"

#define RP_CALIBRATION_CALLS 256

extern char rp_calibrate_call[] RP_HIDDEN;

void rp_calibrate(void) {
  if (rp.emul || !rp.file || rp.pid != rp.measured_pid) return;
  void (*call)(void) = (void (*)(void))(void *)rp_calibrate_call;
  volatile uint64_t *evict = rp.evict_buf; /* --cache-state cold: its evictions are not the probe's */
  rp.evict_buf = NULL;
  const int64_t t0 = rp_now_ns();
  for (int i = 0; i < RP_CALIBRATION_CALLS; ++i) call();
  const int64_t t1 = rp_now_ns();
  rp.evict_buf = evict;
  rp_table_line("C %d %lld", RP_CALIBRATION_CALLS, (long long)(t1 - t0));
}
