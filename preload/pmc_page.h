/* Reading a hardware counter group of the calling thread without a system call, through the
 * perf_event_mmap_page of each of its events, the way include/uapi/linux/perf_event.h documents
 * it (docs/preload.md, "Counting"). Pure arithmetic over the page and two instructions (rdpmc,
 * rdtsc) that the caller supplies, so that the agent (C, -mgeneral-regs-only) uses it with the
 * real instructions and the unit tests (C++) and the agent's scripted PMU with their own.
 *
 * One event:  under the page's seqlock (`lock` read before and after; retry when it moved),
 *   count   = offset + sign_extend(rdpmc(index - 1), pmc_width)   when index != 0
 *           = offset                                              when index == 0 (the event is
 *             not on a counter now: rotated out; the kernel put its whole count in offset)
 * Its group's times, from the leader's page, advanced to now with the TSC (cap_user_time):
 *   cyc     = rdtsc(), corrected as cap_user_time_short says
 *   delta   = time_offset + (cyc >> time_shift) * time_mult
 *                         + (((cyc & ((1 << time_shift) - 1)) * time_mult) >> time_shift)
 *   enabled = time_enabled + delta;  running = time_running + (index != 0 ? delta : 0)
 * The page is not usable (the caller reads the group with read(2) instead) when the kernel does
 * not offer cap_user_time (the page's times are then those of its last update, not now's), or
 * when an event is on a counter (index != 0) and cap_user_rdpmc is 0. */
#ifndef ROOFPROF_PRELOAD_PMC_PAGE_H
#define ROOFPROF_PRELOAD_PMC_PAGE_H

#include <linux/perf_event.h>
#include <stdint.h>

/* The instructions, or a script's stand-ins for them (ctx: theirs). */
struct rp_pmc_source {
  uint64_t (*rdpmc)(void *ctx, uint32_t counter);
  uint64_t (*rdtsc)(void *ctx);
  void *ctx;
};

/* One group's reading: raw counts (leader first) and the group's times. */
struct rp_pmc_reading {
  uint64_t enabled, running;
  uint32_t retries; /* seqlock retries (the kernel updated a page during the read) */
  uint32_t rotated_out; /* the leader was not on a counter (index 0) */
};

#define RP_PMC_BARRIER() __asm__ __volatile__("" ::: "memory")

/* `pmc` is a counter value `width` bits wide: sign-extend it to 64 bits. */
static inline int64_t rp_pmc_sign_extend(uint64_t pmc, uint16_t width) {
  if (width == 0 || width >= 64) return (int64_t)pmc;
  const unsigned shift = 64u - width;
  return (int64_t)(pmc << shift) >> shift;
}

/* The nanoseconds since the page's last update (`delta` above) at TSC value `cyc`. */
static inline uint64_t rp_pmc_time_delta(const volatile struct perf_event_mmap_page *pc, uint64_t cyc) {
  if (pc->cap_user_time_short) cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
  const uint16_t shift = pc->time_shift;
  const uint64_t mult = pc->time_mult;
  const uint64_t quot = cyc >> shift;
  const uint64_t rem = cyc & (((uint64_t)1 << shift) - 1);
  return pc->time_offset + quot * mult + ((rem * mult) >> shift);
}

/* One event's count, under its page's seqlock. 0: the page cannot be used (see above). */
static inline int rp_pmc_read_count(const volatile struct perf_event_mmap_page *pc, const struct rp_pmc_source *src,
                                    uint64_t *count, uint32_t *retries) {
  for (;;) {
    const uint32_t seq = pc->lock;
    RP_PMC_BARRIER();
    const uint32_t index = pc->index;
    uint64_t value = (uint64_t)pc->offset;
    if (index != 0) {
      if (!pc->cap_user_rdpmc) return 0;
      value += (uint64_t)rp_pmc_sign_extend(src->rdpmc(src->ctx, index - 1), pc->pmc_width);
    }
    RP_PMC_BARRIER();
    if (pc->lock == seq && (seq & 1u) == 0) {
      *count = value;
      return 1;
    }
    ++*retries;
  }
}

/* A group: `pages[0]` its leader's, `n` of them; raw counts to `counts`, times to `out`. The
 * leader's seqlock covers the whole read: a rotation (which updates every member's page) while
 * the members are read starts it again. 0: the page cannot be used; read(2) the group. */
static inline int rp_pmc_read_group(const volatile struct perf_event_mmap_page *const *pages, int n,
                                    const struct rp_pmc_source *src, uint64_t *counts, struct rp_pmc_reading *out) {
  const volatile struct perf_event_mmap_page *lead = pages[0];
  out->retries = 0;
  for (;;) {
    const uint32_t seq = lead->lock;
    RP_PMC_BARRIER();
    if (!lead->cap_user_time) return 0;
    const uint64_t enabled = lead->time_enabled, running = lead->time_running;
    const uint32_t index = lead->index;
    const uint64_t delta = rp_pmc_time_delta(lead, src->rdtsc(src->ctx));
    for (int i = 0; i < n; ++i)
      if (!rp_pmc_read_count(pages[i], src, &counts[i], &out->retries)) return 0;
    RP_PMC_BARRIER();
    if (lead->lock == seq && (seq & 1u) == 0) {
      out->enabled = enabled + delta;
      out->running = running + (index != 0 ? delta : 0);
      out->rotated_out = index == 0;
      return 1;
    }
    ++out->retries;
  }
}

#endif
