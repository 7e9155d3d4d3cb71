/* What one boundary of the agent costs, measured once at start in the process roofprof
 * started (docs/preload.md, "What a boundary costs"): RP_CALIBRATION_CALLS calls of an empty
 * function through the whole path of a patched one (trampoline.S, rp_calibrate_call), with the
 * run's counters. Their records (region RP_CALIBRATION_REGION) give roofprof the part of each
 * call that falls inside an instance; the table line "C <calls> <ns>" the whole cost of the
 * calls, timed around the loop, and the part of it the boundaries timed themselves (probe_ns):
 * the rest, per boundary, is what roofprof adds to the measured part when it compensates the
 * regions enclosing other regions' calls (the trampolines' work outside the agent's clock reads).
 * A second loop of as many calls reads no counters: the difference is what the counters add to a
 * call (header counter_call_ns), which decides where counters are cheap enough (thread.c). */
#include "preload/agent/agent.h"


extern char rp_calibrate_call[] RP_HIDDEN;

#define RP_MEDIAN_CALLS 15

/* The median time of a few more calls, each timed on its own (their records go to the ring
 * after the loops' as calibration records too). */
static int64_t median_call(void (*call)(void)) {
  int64_t t[RP_MEDIAN_CALLS];
  for (int i = 0; i < RP_MEDIAN_CALLS; ++i) {
    const int64_t a = rp_now_ns();
    call();
    t[i] = rp_now_ns() - a;
  }
  for (int i = 1; i < RP_MEDIAN_CALLS; ++i) /* insertion sort: no C library in the agent's hot code */
    for (int j = i; j > 0 && t[j - 1] > t[j]; --j) {
      const int64_t x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  return t[RP_MEDIAN_CALLS / 2];
}

void rp_calibrate(void) {
  if (rp.emul || !rp.file || rp.pid != rp.measured_pid) return;
  void (*call)(void) = (void (*)(void))(void *)rp_calibrate_call;
  volatile uint64_t *evict = rp.evict_buf; /* --cache-state cold: its evictions are not the probe's */
  rp.evict_buf = NULL;
  const int64_t p0 = rp_thread_probe_ns();
  const int64_t t0 = rp_now_ns();
  for (unsigned i = 0; i < RP_CALIBRATION_CALLS; ++i) call();
  const int64_t t1 = rp_now_ns();
  const int64_t p1 = rp_thread_probe_ns();
  /* The same calls with the clock alone: what the counters add to a call is the difference of the
   * two loops' median calls (a preemption in a loop moves its total, not its median). */
  rp.calibrating_clock_only = 1;
  const int64_t t2 = rp_now_ns();
  for (unsigned i = 0; i < RP_CALIBRATION_CALLS; ++i) call();
  const int64_t t3 = rp_now_ns();
  const int64_t clock_median = median_call(call);
  rp.calibrating_clock_only = 0;
  const int64_t counted_median = median_call(call);
  rp.evict_buf = evict;
  const int64_t counted = t1 - t0, clock_only = t3 - t2;
  if (rp.n_events && counted_median > clock_median)
    __atomic_store_n(&rp.file->counter_call_ns, counted_median - clock_median, __ATOMIC_RELAXED);
  rp_table_line(RP_TABLE_CALIBRATION_FORMAT, RP_CALIBRATION_CALLS, (long long)counted, (long long)(p1 - p0),
                (long long)clock_only);
}
