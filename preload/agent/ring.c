/* The record file of this process (layout: preload/record_format.h): created at start and in a
 * followed fork child, mapped MAP_SHARED so that what is written survives a crash. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/agent/agent.h"

int rp_file_create(pid_t ppid) {
  size_t bytes = RP_HEADER_BYTES + RP_TABLE_BYTES + RP_STATES_BYTES +
                 rp.ring_slots * RP_RECORD_BYTES(rp.n_values, rp.scope, rp.callers);
  char tmp[PATH_MAX + 64], final[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%s/%d.tmp", rp.dir, (int)rp.pid);
  int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    rp_log("cannot create %s: %s; agent off", tmp, strerror(errno));
    return -1;
  }
  if (ftruncate(fd, (off_t)bytes) != 0) { /* sparse: pages appear as records are written */
    rp_log("cannot size %s: %s; agent off", tmp, strerror(errno));
    close(fd);
    unlink(tmp);
    return -1;
  }
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    rp_log("cannot map %s: %s; agent off", tmp, strerror(errno));
    close(fd);
    unlink(tmp);
    return -1;
  }
  /* Pages appear one at a time as records are written: no readahead of the file's holes (on a
   * disk file system, the first fault would read, and zero, a large folio of them). */
  madvise(m, bytes, MADV_RANDOM);
  struct rp_file_header *h = m;
  memcpy(h->magic, RP_FILE_MAGIC, 8);
  h->version = RP_FILE_VERSION;
  h->record_bytes = (uint32_t)RP_RECORD_BYTES(rp.n_values, rp.scope, rp.callers);
  h->callers = rp.callers ? 1u : 0u;
  h->table_offset = RP_HEADER_BYTES;
  h->table_bytes = RP_TABLE_BYTES;
  h->states_offset = RP_HEADER_BYTES + RP_TABLE_BYTES;
  h->ring_offset = h->states_offset + RP_STATES_BYTES;
  h->cheap_factor = rp.cheap_factor;
  h->capacity = rp.ring_slots;
  h->pid = rp.pid;
  h->ppid = ppid;
  h->scope = (uint32_t)rp.scope;
  h->n_events = (uint32_t)rp.n_events;
  h->n_times = (uint32_t)rp.n_times;
  h->start_ns = rp_now_ns();
  h->consumer_pid = rp.consumer_pid;
  /* A fork child keeps the parent's table: the same hooks are in its memory. */
  if (rp.file) {
    uint64_t len = __atomic_load_n(&rp.file->table_len, __ATOMIC_ACQUIRE);
    memcpy((char *)m + RP_HEADER_BYTES, rp.table, len);
    h->table_len = len;
    rp_file_drop_parent();
  }
  /* Publish under the final name only once the header is complete. */
  for (int n = 0;; ++n) {
    snprintf(final, sizeof final, "%s/%d.%d%s", rp.dir, (int)rp.pid, n, RP_FILE_SUFFIX);
    if (link(tmp, final) == 0) break;
    if (errno != EEXIST || n > 1000) {
      rp_log("cannot publish %s: %s; agent off", final, strerror(errno));
      munmap(m, bytes);
      close(fd);
      unlink(tmp);
      return -1;
    }
  }
  unlink(tmp);
  close(fd);
  rp.file = h;
  rp.file_bytes = bytes;
  rp.table = (char *)m + RP_HEADER_BYTES;
  rp.ring = (char *)m + h->ring_offset;
  rp.states = (struct rp_region_state *)((char *)m + h->states_offset);
  rp.record_bytes = h->record_bytes;
  rp.ring_mask = rp.ring_slots - 1;
  rp.doorbell_mark = RP_DOORBELL_MARK(rp.ring_slots, rp.record_bytes);
  rp_doorbell_open();
  return 0;
}

void rp_file_drop_parent(void) {
  if (!rp.file) return;
  munmap(rp.file, rp.file_bytes);
  rp.file = NULL;
  rp.table = NULL;
  rp.ring = NULL;
  rp.states = NULL;
}

void rp_table_line(const char *fmt, ...) {
  if (!rp.file) return;
  char line[PATH_MAX + 256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  pthread_mutex_lock(&rp.lock);
  uint64_t len = rp.file->table_len;
  if (len + (uint64_t)n <= rp.file->table_bytes) {
    memcpy(rp.table + len, line, (size_t)n);
    __atomic_store_n(&rp.file->table_len, len + (uint64_t)n, __ATOMIC_RELEASE);
  } else {
    __atomic_fetch_or(&rp.file->flags, RP_F_TABLE_FULL, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&rp.lock);
  if (rp.debug) rp_log("%.*s", n - 1, line);
}

/* Is the consumer still there to free slots? */
static int consumer_alive(void) {
  pid_t c = __atomic_load_n(&rp.file->consumer_pid, __ATOMIC_ACQUIRE);
  return c > 0 && rp_syscall6(SYS_kill, c, 0, 0, 0, 0, 0) != -ESRCH;
}

/* Waits until the consumer is done with the record a lap before position `pos` (the ring is
 * full until it catches up). Returns 0 when the consumer is gone: the agent stops recording. */
static int wait_for_slot(struct rp_file_header *h, uint64_t pos) {
  struct timespec nap = {0, 20000};
  rp_doorbell_ring(); /* the ring is full: roofprof must drain it now */
  for (unsigned spins = 0;; ++spins) {
    if (pos - __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE) < rp.ring_slots) return 1;
    if (spins < 256) {
      __builtin_ia32_pause();
      continue;
    }
    if ((spins & 255) == 0 && !consumer_alive()) return 0;
    /* Again while it waits: roofprof may have been awake at the first ring and gone to sleep
     * before it opened this process's file (so its look at the rings did not see this one). */
    rp_doorbell_ring();
    rp_syscall6(SYS_nanosleep, (long)&nap, 0, 0, 0, 0, 0);
  }
}

void rp_emit_at(struct rp_thread *t, int kind, int reason, uint32_t region, uint64_t sp, int64_t now) {
  if (rp.emul || !rp.file) {
    t->n_closing = 0;
    if (rp.emul) rp_emul_emit(t, kind, reason, region, sp);
    return;
  }
  struct rp_file_header *h = rp.file;
  /* The instance's time is as close to the function as the agent can take it: an entry (or an
   * inlined copy's span start or re-entry) reads its counters, claims and fills its slot, and
   * only then the clock; every other record takes the clock first (or was given it: rp_on_exit
   * reads it before anything else). */
  uint64_t counts[RP_MAX_VALUES], process[RP_MAX_VALUES];
  int have_counts = 0, have_process = 0;
  const int opening = kind == RP_ENTER || kind == RP_SPAN_START || kind == RP_SPAN_RESUME;
  if (!opening && now == 0) now = rp_now_ns();
  const int solo = rp.solo; /* one thread: its counts are the process's (agent.h) */
  const int counted = rp.n_events && !t->clock_only; /* clock only: rp_thread.clock_only */
  if (counted) {
    have_counts = solo ? rp_counters_read_process(counts) : rp_counters_read(&t->counters, counts);
    if (have_counts && !solo && t->has_offset)
      for (int i = 0; i < rp.n_values; ++i) counts[i] += t->own_offset[i];
  }
  uint64_t pos;
  if (rp.n_events && rp.scope == RP_SCOPE_PROCESS) {
    /* The process's counts only where a region opens or closes in the process (share.c), read
     * in ring order: under the lock that orders the open counts and the slots. */
    rp_share_lock(kind == RP_PROCESS_EXIT);
    pos = __atomic_fetch_add(&h->head, 1, __ATOMIC_RELAXED);
    if (rp_share_apply(t, kind, region) && counted) {
      if (solo) {
        have_process = have_counts;
        memcpy(process, counts, sizeof process);
      } else {
        have_process = rp_counters_read_process(process);
      }
    }
    rp_share_unlock();
  } else {
    t->n_closing = 0;
    pos = __atomic_fetch_add(&h->head, 1, __ATOMIC_RELAXED);
  }
  struct rp_record *s = (struct rp_record *)(rp.ring + (pos & rp.ring_mask) * rp.record_bytes);
  /* The tail only moves on: a stale one overstates what is pending, never understates it. */
  const uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
  if (pos - tail >= rp.ring_slots && !wait_for_slot(h, pos)) {
    __atomic_fetch_add(&h->lost, 1, __ATOMIC_RELAXED);
    __atomic_fetch_or(&h->flags, RP_F_NO_CONSUMER, __ATOMIC_RELAXED);
    rp.active = 0;
    return;
  }
  s->kind = (uint8_t)kind;
  s->reason = (uint8_t)reason;
  s->flags = (uint8_t)((have_counts ? RP_REC_COUNTS : 0) | (have_process ? RP_REC_PROCESS_COUNTS : 0));
  s->pad = 0;
  s->region = region;
  s->pid = rp.pid;
  s->tid = t->tid;
  s->sp = sp;
  for (int i = 0; i < rp.n_values; ++i) s->counts[i] = have_counts ? counts[i] : 0;
  const int n_values = (int)RP_RECORD_VALUES(rp.n_values, rp.scope);
  for (int i = rp.n_values; i < n_values; ++i) s->counts[i] = have_process ? process[i - rp.n_values] : 0;
  if (rp.callers) /* the return address, before the exit stub replaces it */
    s->counts[n_values] = kind == RP_ENTER ? *(const uint64_t *)(uintptr_t)sp : 0;
  if (opening) now = rp_now_ns();
  s->time_ns = t->record_ns = now;
  s->probe_ns = t->probe_ns + (t->boundary_start ? now - t->boundary_start : 0);
  s->probe_boundaries = t->probe_boundaries;
  __atomic_store_n(&s->seq, pos + 1, __ATOMIC_RELEASE);
  /* roofprof sleeps until a ring fills past its mark, or a thread or the process ends. */
  if (pos + 1 - tail >= rp.doorbell_mark || kind == RP_THREAD_EXIT || kind == RP_PROCESS_EXIT)
    rp_doorbell_ring();
}

void rp_emit(struct rp_thread *t, int kind, int reason, uint32_t region, uint64_t sp) {
  rp_emit_at(t, kind, reason, region, sp, 0);
}
