/* Per-thread state and the C side of the trampolines: the shadow stack of hooked calls in
 * progress, entry and exit records, and the shadow-stack repairs for longjmp, exceptions,
 * thread exit and fork. Everything reachable from rp_on_enter / rp_on_exit runs inside a
 * hooked call: it uses no floating-point or vector registers (-mgeneral-regs-only), calls
 * the kernel only through rp_syscall6 (errno is kept) and takes no lock. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/agent/agent.h"
#include "probes/site_role.h"

#define RP_THREAD_GONE ((struct rp_thread *)1)

static __thread struct rp_thread *self __attribute__((tls_model("initial-exec")));
static __thread int sandboxed __attribute__((tls_model("initial-exec")));

void rp_thread_sandbox(int on) {
  if (on && !sandboxed)
    rp_table_line(RP_TABLE_WARNING " a thread entered seccomp strict mode: its calls from then on are not measured");
  sandboxed = on;
}

static void thread_key_destructor(void *p);

int rp_threads_init(void) { return pthread_key_create(&rp.thread_key, thread_key_destructor); }

static struct rp_thread *thread_start(void) {
  long m = rp_syscall6(SYS_mmap, 0, sizeof(struct rp_thread), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m < 0 && m > -4096) return NULL;
  struct rp_thread *t = (struct rp_thread *)m;
  t->tid = (int32_t)rp_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
  t->busy = 1; /* the C library functions called here may be patched region functions */
  self = t;
  rp_counters_open_thread(&t->counters); /* while solo, its timed groups are the process's too */
  pthread_setspecific(rp.thread_key, t); /* for thread_key_destructor at thread exit */
  t->busy = 0;
  return t;
}

/* A frame leaves the shadow stack: its thread's next record closes its region (share.c). */
static void closing(struct rp_thread *t, const struct rp_frame *f) {
  if (!(f->flags & RP_FRAME_SILENT) && t->n_closing < RP_MAX_DEPTH) t->closing[t->n_closing++] = f->region;
}

static void fatal(const char *what) {
  rp_log("%s", what);
  abort();
}

/* Frames below `slot` (deeper in the stack than a call being entered there, or than the
 * caller of an unwinder) are gone: their functions were left without returning through the
 * exit stub (their original return address put back for an unwinder that then did not end in
 * __cxa_begin_catch, a foreign exception; or a longjmp inside the C library, which does not
 * go through the interposed longjmp: dlerror's _dl_catch_exception). Their instances close as
 * unwound. Only frames on the same stack (within 64 MiB): a signal handler on an alternate
 * stack above this one does not end them. */
static void drop_below(struct rp_thread *t, uint64_t *slot, int emit) {
  int closed = 0;
  while (t->depth > 0) {
    struct rp_frame *f = &t->frames[t->depth - 1];
    if (f->slot >= slot || (uintptr_t)slot - (uintptr_t)f->slot > (64u << 20)) break;
    closed |= !(f->flags & RP_FRAME_SILENT);
    closing(t, f);
    t->depth--;
  }
  if (closed && emit) rp_emit(t, RP_STACK_AT, RP_REASON_UNWOUND, 0, (uint64_t)slot);
}

/* The boundary in progress on `t` ends: its time from its first clock read on is the probe's. */
static void boundary_end(struct rp_thread *t) {
  if (!t->boundary_start) return;
  t->probe_ns += rp_now_ns() - t->boundary_start;
  t->boundary_start = 0;
}

/* Counters only where cheap: the first RP_STATE_SAMPLE calls of a region are timed (from its
 * entry record's time to its return's); if their mean is shorter than cheap_factor times what the counters add to
 * a call, the region's boundaries read the clock alone from then on (record_format.h). */
static void sample_call(uint32_t region, int64_t ns) {
  struct rp_region_state *st = rp_region_state_of(rp.states, region);
  if (!st || __atomic_load_n(&st->timed_calls, __ATOMIC_RELAXED) >= RP_STATE_SAMPLE) return;
  const int64_t sum = __atomic_add_fetch(&st->timed_ns, ns, __ATOMIC_RELAXED);
  if (__atomic_add_fetch(&st->timed_calls, 1, __ATOMIC_RELAXED) != RP_STATE_SAMPLE) return;
  const int64_t counters_ns = __atomic_load_n(&rp.file->counter_call_ns, __ATOMIC_RELAXED);
  if (rp.cheap_factor && rp.n_events && counters_ns && sum < (int64_t)RP_STATE_SAMPLE * rp.cheap_factor * counters_ns)
    __atomic_fetch_or(&st->flags, RP_STATE_CLOCK_ONLY, __ATOMIC_RELAXED);
}

/* Whether every region that frames lo..hi (or the entry of `region`) stand for is clock-only. */
static int all_clock_only(const struct rp_frame *frames, int lo, int hi) {
  for (int k = lo; k <= hi; ++k) {
    if (frames[k].flags & RP_FRAME_SILENT) continue;
    struct rp_region_state *st = rp_region_state_of(rp.states, frames[k].region);
    if (!st || !(__atomic_load_n(&st->flags, __ATOMIC_RELAXED) & RP_STATE_CLOCK_ONLY)) return 0;
  }
  return 1;
}

/* Entry of a recorded call of `region`: `slot` holds the return address; returns `target`,
 * where the call goes on. */
static void *enter(uint32_t region, void *target, uint64_t *slot) {
  struct rp_thread *t = self;
  if (!rp.active || sandboxed) return target;
  if (__builtin_expect(t == NULL, 0)) t = thread_start();
  if (t == NULL || t == RP_THREAD_GONE || t->exited) return target;
  if (t->busy) {
    __atomic_fetch_add(&rp.file->reentered, 1, __ATOMIC_RELAXED);
    return target;
  }
  struct rp_region_state *st = rp_region_state_of(rp.states, region);
  const uint32_t state = st ? __atomic_load_n(&st->flags, __ATOMIC_RELAXED) : 0;
  if (state & RP_STATE_OFF) return target; /* roofprof stopped probing it (the probe budget) */
  t->busy = (uintptr_t)slot;
  drop_below(t, slot, 1);
  for (uint32_t i = 0; i < t->depth; ++i) {
    if (t->frames[i].region == region && !(t->frames[i].flags & RP_FRAME_SILENT)) {
      t->busy = 0; /* recursion: counted once, at the outermost call */
      return target;
    }
  }
  if (t->depth >= RP_MAX_DEPTH) {
    __atomic_fetch_add(&rp.file->shadow_overflow, 1, __ATOMIC_RELAXED);
    t->busy = 0;
    return target;
  }
  if (rp.evict_buf && t->depth == 0) rp_evict(); /* cold: before the entry's time and counts */
  if (!rp.emul) t->boundary_start = rp_now_ns();
  struct rp_frame *f = &t->frames[t->depth];
  f->slot = slot;
  f->ret = *slot;
  f->region = region;
  f->flags = 0;
  t->depth++;
  t->probe_boundaries++; /* the entry's untimed rest lies after its record */
  t->clock_only = (state & RP_STATE_CLOCK_ONLY) || rp.calibrating_clock_only;
  rp_emit(t, RP_ENTER, RP_REASON_RETURN, region, (uint64_t)slot);
  t->clock_only = 0;
  f->begin_ns = t->record_ns; /* the instance's start, as roofprof sees it */
  *slot = (uint64_t)(uintptr_t)rp_exit_stub;
  boundary_end(t);
  t->busy = 0;
  return target;
}

/* A call through a hooked GOT slot (trampoline.S, rp_entry_common). */
RP_HIDDEN void *rp_on_enter(uint32_t index, uint64_t *slot) {
  const struct rp_hook *h = &rp.hooks[index];
  return enter(h->region, h->target, slot);
}

/* A call of a function whose entry the tracer patched (trampoline.S, roofprof_patch_entry). */
RP_HIDDEN void *rp_on_enter_patch(const struct rp_patch_desc *d, uint64_t *slot) {
  return enter(d->region, (void *)(uintptr_t)d->continuation, slot);
}

/* A boundary of an inlined copy whose code the tracer patched (trampoline.S,
 * roofprof_patch_span): its entry point, an exit or a re-entry, at the program's stack pointer
 * `sp`. A span record; no shadow-stack frame. Returns where the program goes on. */
RP_HIDDEN void *rp_on_span_patch(const struct rp_patch_desc *d, uint64_t sp) {
  void *next = (void *)(uintptr_t)d->continuation;
  struct rp_thread *t = self;
  if (!rp.active || sandboxed) return next;
  if (__builtin_expect(t == NULL, 0)) t = thread_start();
  if (t == NULL || t == RP_THREAD_GONE || t->exited) return next;
  if (t->busy) {
    __atomic_fetch_add(&rp.file->reentered, 1, __ATOMIC_RELAXED);
    return next;
  }
  const int kind = d->role == RP_SITE_SPAN_START  ? RP_SPAN_START
                   : d->role == RP_SITE_SPAN_STOP ? RP_SPAN_STOP
                                                  : RP_SPAN_RESUME;
  /* Turned off (the probe budget): no new instance opens; a stop still closes one left open. */
  struct rp_region_state *st = rp_region_state_of(rp.states, d->region);
  if (kind != RP_SPAN_STOP && st && (__atomic_load_n(&st->flags, __ATOMIC_RELAXED) & RP_STATE_OFF)) return next;
  t->busy = sp;
  /* Timed as an entry or a return is (compensation): from the first clock read to the last. */
  if (!rp.emul) t->boundary_start = rp_now_ns();
  t->probe_boundaries++;
  rp_emit(t, kind, RP_REASON_SPAN_STOP, d->region, sp);
  boundary_end(t);
  t->busy = 0;
  return next;
}

/* A hooked call returned into rp_exit_stub; `sp` is the stack pointer after its return.
 * Returns the original return address. A tail call between hooked functions leaves several
 * frames on one slot: they all end here, at once. */
RP_HIDDEN void *rp_on_exit(uint64_t sp) {
  struct rp_thread *t = self;
  if (t == NULL || t == RP_THREAD_GONE) fatal("return through the exit stub on a thread without agent state");
  /* The clock first: the instance ends as the function returns. The agent is busy from here
   * on: clock_gettime itself may be a patched region function. */
  const int own = !t->busy;
  if (own) t->busy = sp;
  /* Under roofprof's valgrind tool the record is a client request and takes no time: reading
   * the clock there would only add the vDSO's instructions and bytes to the instance. */
  const int64_t now = rp.emul ? 0 : rp_now_ns();
  uint64_t *slot = (uint64_t *)(sp - 8);
  int i = (int)t->depth - 1;
  while (i >= 0 && t->frames[i].slot != slot) --i;
  if (i < 0) fatal("return through the exit stub without a shadow-stack frame: cannot continue");
  int lo = i;
  while (lo > 0 && t->frames[lo - 1].slot == slot) --lo;
  uint64_t ret = t->frames[lo].ret;
  int silent = 1;
  for (int k = lo; k <= i; ++k) silent &= (t->frames[k].flags & RP_FRAME_SILENT) != 0;
  int clock_only = 0;
  if (!silent && rp.file && !rp.emul) {
    for (int k = lo; k <= i; ++k)
      if (!(t->frames[k].flags & RP_FRAME_SILENT)) sample_call(t->frames[k].region, now - t->frames[k].begin_ns);
    clock_only = all_clock_only(t->frames, lo, i) || rp.calibrating_clock_only;
  }
  for (int k = lo; k <= i; ++k) closing(t, &t->frames[k]);
  uint32_t above = t->depth - 1 - (uint32_t)i;
  if (above) memcpy(&t->frames[lo], &t->frames[i + 1], above * sizeof(struct rp_frame));
  t->depth -= (uint32_t)(i - lo + 1);
  if (!silent && rp.active && !sandboxed && own && !t->exited) {
    t->boundary_start = now;
    t->clock_only = clock_only;
    rp_emit_at(t, RP_STACK_AT, RP_REASON_RETURN, 0, sp, now);
    t->clock_only = 0;
    t->probe_boundaries++; /* the exit's untimed part came before its record */
    boundary_end(t);
  }
  if (own) t->busy = 0;
  return (void *)ret;
}

int64_t rp_thread_probe_ns(void) {
  struct rp_thread *t = self;
  return t == NULL || t == RP_THREAD_GONE ? 0 : t->probe_ns;
}

void rp_thread_restore_all(uint64_t sp) {
  struct rp_thread *t = self;
  if (t == NULL || t == RP_THREAD_GONE) return;
  drop_below(t, (uint64_t *)sp, 0); /* their slots hold other data by now: never written */
  for (int i = (int)t->depth - 1; i >= 0; --i) { /* top down: a tail-call chain ends original */
    struct rp_frame *f = &t->frames[i];
    if (f->flags & RP_FRAME_RESTORED) continue;
    *f->slot = f->ret;
    f->flags |= RP_FRAME_RESTORED;
  }
}

void rp_thread_unwind_to(uint64_t sp, int reason, int rehijack_rest) {
  struct rp_thread *t = self;
  if (t == NULL || t == RP_THREAD_GONE) return;
  /* A signal handler leaving an interrupted agent call behind: that call is gone too. */
  if (t->busy && t->busy < sp) t->busy = 0;
  int closed = 0;
  while (t->depth > 0 && (uint64_t)t->frames[t->depth - 1].slot < sp) {
    closed |= !(t->frames[t->depth - 1].flags & RP_FRAME_SILENT);
    closing(t, &t->frames[t->depth - 1]);
    t->depth--;
  }
  if (closed && rp.active && !sandboxed && !t->busy && !t->exited) {
    t->busy = sp;
    rp_emit(t, RP_STACK_AT, reason, 0, sp);
    t->busy = 0;
  }
  if (!rehijack_rest) return;
  for (uint32_t i = 0; i < t->depth; ++i) {
    struct rp_frame *f = &t->frames[i];
    if (!(f->flags & RP_FRAME_RESTORED)) continue;
    *f->slot = (uint64_t)(uintptr_t)rp_exit_stub;
    f->flags &= ~RP_FRAME_RESTORED;
  }
}

void rp_thread_leave_solo(void) {
  if (!rp.solo) return;
  struct rp_thread *t = self;
  if (t != NULL && t != RP_THREAD_GONE && t->counters.open) {
    uint64_t own[RP_MAX_VALUES], process[RP_MAX_VALUES];
    const uintptr_t was = t->busy;
    t->busy = 1;
    if (rp_counters_read(&t->counters, own) && rp_counters_read_process(process)) {
      for (int i = 0; i < rp.n_values; ++i) t->own_offset[i] = process[i] - own[i];
      /* hardware groups: the process's were this thread's own while solo (counters.c) */
      for (int g = 0; g < rp.n_groups; ++g) {
        if (!rp.groups[g].timed) continue;
        for (int k = 0; k < rp.groups[g].count; ++k) t->own_offset[rp.groups[g].first + k] = 0;
        t->own_offset[rp.n_events + 2 * rp.groups[g].timed_index] = 0;
        t->own_offset[rp.n_events + 2 * rp.groups[g].timed_index + 1] = 0;
      }
      t->has_offset = 1;
    } else {
      rp_counters_close(&t->counters); /* its own counts could not continue the process's: unknown */
    }
    t->busy = was;
  }
  {
    const uintptr_t was = t != NULL && t != RP_THREAD_GONE ? t->busy : 0;
    if (t != NULL && t != RP_THREAD_GONE) t->busy = 1;
    rp_counters_leave_solo(); /* the process's hardware groups become inherited ones */
    if (t != NULL && t != RP_THREAD_GONE) t->busy = was;
  }
  rp.solo = 0;
}

/* pthread_exit: the thread's frames are abandoned; the unwinder must see real return addresses. */
void rp_thread_exiting(void) { rp_thread_restore_all((uint64_t)(uintptr_t)__builtin_frame_address(0)); }

static void thread_key_destructor(void *p) {
  struct rp_thread *t = p;
  if (t == NULL || t == RP_THREAD_GONE) return;
  int open = 0, hijacked = 0;
  for (uint32_t i = 0; i < t->depth; ++i) {
    open |= !(t->frames[i].flags & RP_FRAME_SILENT);
    hijacked |= !(t->frames[i].flags & RP_FRAME_RESTORED);
  }
  if (open && rp.active && !sandboxed && !t->exited) {
    for (uint32_t i = 0; i < t->depth; ++i) closing(t, &t->frames[i]);
    rp_emit(t, RP_THREAD_EXIT, RP_REASON_THREAD_EXIT, 0, 0);
  }
  t->exited = 1;
  rp_counters_close(&t->counters);
  if (hijacked) return; /* exit stubs may still need the frames: keep them */
  self = RP_THREAD_GONE;
  rp_syscall6(SYS_munmap, (long)t, sizeof *t, 0, 0, 0, 0);
}

static void process_record(int reason) {
  struct rp_thread *t = self;
  if (t == NULL) t = thread_start();
  if (t == NULL || t == RP_THREAD_GONE) {
    static struct rp_thread anonymous; /* a thread whose state is gone: no thread counts */
    anonymous.tid = (int32_t)rp_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
    anonymous.counters.open = 0;
    t = &anonymous;
  }
  t->busy = 1;
  rp_emit(t, RP_PROCESS_EXIT, reason, 0, 0);
  __atomic_fetch_or(&rp.file->flags, RP_F_EXITED, __ATOMIC_RELEASE);
  rp.active = 0;
  t->busy = 0;
}

/* The process exits (exit(), or return from main): everything still open closes. */
void rp_process_exiting(void) { process_record(RP_REASON_PROCESS_EXIT); }

/* A fatal signal: everything still open closes as crash, with the counts of this moment. */
void rp_process_crashing(void) { process_record(RP_REASON_CRASH); }

/* In a fork child: the forking thread goes on with its hooked calls, which were opened in the
 * parent; they return normally but are not instances of the child. */
void rp_thread_after_fork_child(void) {
  struct rp_thread *t = self;
  if (t == NULL || t == RP_THREAD_GONE) return;
  t->tid = (int32_t)rp_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
  t->busy = 0;
  rp_counters_close(&t->counters);
  if (rp.active) rp_counters_open_thread(&t->counters);
  t->has_offset = 0;
  for (uint32_t i = 0; i < t->depth; ++i) t->frames[i].flags |= RP_FRAME_SILENT;
  t->n_closing = 0;
}
