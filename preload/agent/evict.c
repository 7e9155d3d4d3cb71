/* The cold-cache scenario (run --cache-state cold) in the agent: before each hooked call that
 * no other hooked call of the thread encloses, the calling thread writes and then reads a
 * buffer larger than the last-level cache (ROOFPROF_AGENT_EVICT_BYTES, sized by roofprof from
 * sysfs), before the entry's time and counts are taken. Runs inside a hooked call: general
 * registers only, no lock, no libc call. */
#include <sys/mman.h>
#include <sys/syscall.h>

#include "preload/agent/agent.h"

void rp_evict_init(void) {
  if (rp.evict_bytes < 64) return;
  long m = rp_syscall6(SYS_mmap, 0, (long)rp.evict_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m < 0 && m > -4096) {
    rp_log("cannot map %zu bytes to evict the caches: --cache-state cold has no effect", rp.evict_bytes);
    return;
  }
  rp.evict_buf = (volatile uint64_t *)m;
}

void rp_evict(void) {
  volatile uint64_t *b = rp.evict_buf;
  size_t words = rp.evict_bytes / 8;
  for (size_t i = 0; i < words; i += 8) b[i] = i; /* one store per 64-byte line */
  uint64_t sum = 0;
  for (size_t i = 0; i < words; i += 8) sum += b[i]; /* then one load per line */
  b[0] = sum;
  if (rp.file) __atomic_fetch_add(&rp.file->evictions, 1, __ATOMIC_RELAXED);
}
