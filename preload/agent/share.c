/* scope=process with counters: which records carry the process's counts. The tracker
 * (regions/tracker.hpp) reads the whole process only when a region opens on its first thread or
 * closes on its last; every other boundary reads its own thread's group, which costs the same
 * whatever the number of threads (reading the inherited group costs a read of every thread).
 * The agent does not know roofprof's regions, only its own (a region of the run covers one or
 * more of them), but a region of the run opens or closes in the process only where one of its
 * agent regions does: so the agent counts, per agent region, the threads with an instance of it
 * open, and a record at which one of those counts goes 0 -> 1 or 1 -> 0 carries the process's
 * counts. The counts change and the record takes its place in the ring under one lock, so the
 * ring's order (the order roofprof replays) is the order of those changes. */
#include <sys/syscall.h>

#include "preload/agent/agent.h"
#include "preload/patch_format.h"

#define RP_SHARED_PATCHES 4096 /* patched regions counted; a later one reads the process always */

static uint32_t hook_open[RP_MAX_REGIONS];
static uint32_t patch_open[RP_SHARED_PATCHES];
static int lock_word;

/* The open count of `region`; NULL when it is not counted (every change is then a change). */
static uint32_t *open_count(uint32_t region) {
  if (region & RP_PATCH_REGION_FLAG) {
    uint32_t id = region & ~RP_PATCH_REGION_FLAG;
    return id < RP_SHARED_PATCHES ? &patch_open[id] : NULL;
  }
  return region < RP_MAX_REGIONS ? &hook_open[region] : NULL;
}

/* One thread more (+1) or fewer (-1) with `region` open: 1 when it opens or closes in the process. */
static int step(uint32_t region, int delta) {
  if (region == RP_CALIBRATION_REGION) return 0;
  uint32_t *n = open_count(region);
  if (n == NULL) return 1;
  if (delta > 0) return (*n)++ == 0;
  if (*n == 0) return 1; /* a close never opened here (before a fork): read, to be safe */
  return --*n == 0;
}

/* Held for a few atomic operations, or for the process's read at a region's first or last
 * thread. A holder can be descheduled (more threads than cores): after a short spin the
 * waiter gives its CPU away rather than burn its time slice. */
void rp_share_lock(int bounded) {
  for (unsigned spins = 0; __atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE); ++spins) {
    if (bounded && spins > (1u << 16)) return; /* a dying process's last record: go on without */
    if (spins < 64) {
      __builtin_ia32_pause();
    } else {
      rp_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
    }
  }
}

void rp_share_unlock(void) { __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE); }

int rp_share_apply(struct rp_thread *t, int kind, uint32_t region) {
  /* A span record: the agent keeps no state of spans, so whether the region opens or closes in
   * the process is not known here; the process's counts go with every one. */
  int changed = kind == RP_PROCESS_EXIT || kind >= RP_SPAN_START;
  if (kind == RP_ENTER) changed |= step(region, +1);
  for (uint32_t i = 0; i < t->n_closing; ++i) changed |= step(t->closing[i], -1);
  t->n_closing = 0;
  return changed;
}

void rp_share_reset(void) {
  for (uint32_t i = 0; i < RP_MAX_REGIONS; ++i) hook_open[i] = 0;
  for (uint32_t i = 0; i < RP_SHARED_PATCHES; ++i) patch_open[i] = 0;
  lock_word = 0;
}
