/* Internal interface of the in-process agent (libroofprof-preload.so). C only: the agent must
 * not pull in the C++ runtime. Every piece of process-global state lives in `rp` (agent.c);
 * per-thread state lives in one struct rp_thread per thread (thread.c). */
#ifndef ROOFPROF_AGENT_H
#define ROOFPROF_AGENT_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "preload/patch_format.h"
#include "preload/record_format.h"

#define RP_HIDDEN __attribute__((visibility("hidden")))
#define RP_EXPORT __attribute__((visibility("default")))

#define RP_MAX_REGIONS 4096  /* (spec, symbol) pairs hooked */
#define RP_MAX_HOOKS 8192    /* (region, target) trampolines: must match trampoline.S */
#define RP_MAX_MODULES 1024  /* modules remembered as scanned */
#define RP_MAX_PROCESS_GROUPS 64 /* threads that predate the agent, counted in process scope */
#define RP_MAX_GROUPS 8 /* perf groups of a thread: the software events', the hardware ones' */

struct perf_event_mmap_page;

/* One event of ROOFPROF_AGENT_EVENTS (config.c). */
struct rp_event {
  uint32_t type;
  uint64_t config, config1;
  uint32_t flags; /* RP_EVENT_* (record_format.h) */
};

/* One group: events [first, first + count); timed: hardware (the kernel may rotate it off the
 * counters), read with its times, its snapshot's times at n_events + 2 * timed_index. */
struct rp_group {
  int first, count;
  int timed, timed_index;
};

/* The counter groups of one thread (its own), or of one thread that predates the agent
 * (inherited, process scope). counters.c. */
struct rp_counter_set {
  int open;                 /* every group is open (but the timed ones when `no_timed`) */
  int process;              /* one of rp.process_sets (inherited): a native group reads the process */
  int no_timed;             /* process scope while solo: the timed groups are the thread's own */
  int fds[RP_MAX_EVENTS];   /* in event order; -1: none (or a scripted group) */
  /* a timed group's events' perf_event_mmap_page, mapped for rdpmc reads (own groups only:
   * the kernel refuses to map inherited events); NULL: read(2) */
  struct perf_event_mmap_page *pages[RP_MAX_EVENTS];
  void *scripted[RP_MAX_GROUPS]; /* test seams: a scripted group in place of the kernel's */
};

struct rp_pattern {
  uint32_t spec;  /* spec index in roofprof's planner */
  int glob;       /* has *, ? or [ */
  char *text;
};

struct rp_hook { /* what trampoline stub i calls */
  uint32_t region;
  void *target;
};

struct rp_region_name {
  uint32_t spec;
  char *symbol;
};

struct rp_module_seen {
  uintptr_t base;
  const void *dynamic;
  int done;      /* every matching slot hooked: no need to look again */
  int present;   /* seen in the current scan */
  int announced; /* its M line is written */
};

/* Process-global state of the agent: configuration, record file, hooks, real functions.
 * Written by the constructor, by rescans (under `lock`) and in the child after fork;
 * the trampolines only read `active`, `hooks`, `scope`, `n_events` and the file pointers. */
struct rp_agent {
  volatile int active; /* records are written */
  int enabled;         /* configured and in a process roofprof measures */

  /* configuration, from the environment (config.c) */
  char dir[PATH_MAX];
  struct rp_pattern *patterns; /* --region specs given to the agent, as many as given */
  int n_patterns;
  int scope; /* enum rp_scope */
  int n_events;
  int callers; /* ROOFPROF_AGENT_CALLERS: RP_ENTER records carry the return address */
  struct rp_event events[RP_MAX_EVENTS];
  struct rp_group groups[RP_MAX_GROUPS];
  int n_groups;
  int n_times;  /* 2 x the timed groups */
  int n_values; /* a snapshot: n_events + n_times (record_format.h) */
  int user_level;                       /* ROOFPROF_AGENT_USER_LEVEL: exclude_kernel */
  int follow_fork;
  pid_t measured_pid;  /* ROOFPROF_AGENT_PID: the process roofprof started */
  pid_t consumer_pid;  /* ROOFPROF_AGENT_CONSUMER */
  uint64_t ring_slots;
  size_t evict_bytes;          /* ROOFPROF_AGENT_EVICT_BYTES: --cache-state cold (evict.c) */
  volatile uint64_t *evict_buf; /* mapped by rp_evict_init; NULL: warm */
  int debug;
  int log_on; /* ROOFPROF_LOG names agent (log.c): RP_TRACE writes to log_fd */
  int log_fd;
  int emul; /* ROOFPROF_AGENT_EMUL: boundaries go to roofprof's valgrind tool (emul.c) */
  int sites_only; /* ROOFPROF_AGENT_SITES=1 (combined mode): hook only the targets roofprof lists */

  /* this process */
  pid_t pid;
  uintptr_t self_base; /* load address of the agent itself (its relocations are never hooked) */
  uintptr_t self_text_lo, self_text_hi; /* the agent's executable segment (its own dlsym calls) */

  /* record file (ring.c) */
  struct rp_file_header *file;
  size_t file_bytes;
  char *ring;            /* slot p % ring_slots at ring + (p % ring_slots) * record_bytes */
  uint64_t ring_mask;
  uint64_t record_bytes; /* RP_RECORD_BYTES(n_events, scope, callers) */
  char *table;
  struct rp_region_state *states; /* in the file: shared with roofprof (record_format.h) */
  uint32_t cheap_factor;          /* ROOFPROF_AGENT_CHEAP_FACTOR (record_format.h, header) */
  int calibrating_clock_only;     /* calibrate.c: its second loop reads no counters */
  struct rp_doorbell *doorbell; /* DIR/doorbell, shared with roofprof (doorbell.c); NULL: none */
  uint64_t doorbell_mark;       /* records pending at which a record rings it (record_format.h) */

  /* hooks (hooks.c), protected by `lock` except the lock-free reads of the trampolines */
  pthread_mutex_t lock;
  struct rp_hook hooks[RP_MAX_HOOKS];
  uint32_t n_hooks;
  struct rp_region_name regions[RP_MAX_REGIONS];
  uint32_t n_regions;
  struct rp_module_seen modules[RP_MAX_MODULES];
  int n_modules;

  /* counters (counters.c) */
  struct rp_counter_set process_sets[RP_MAX_PROCESS_GROUPS]; /* process scope: inherited groups (counters.c) */
  int n_process_sets;
  int process_unknown; /* they could not all be opened: process counts are unknown */
  /* scope=process with counters, and the process has had one thread since the agent started:
   * that thread's counts are the process's, read once (ring.c); the first pthread_create ends it
   * (rp_thread_leave_solo). */
  volatile int solo;
  /* With hardware (timed) groups the process's are not inherited ones while solo: they are the
   * solo thread's own, read through their pages (counters.c); at the first pthread_create
   * inherited ones open on the calling thread, and process_offset continues the counts. */
  struct rp_counter_set *solo_set;
  uint64_t process_offset[RP_MAX_VALUES]; /* added to the inherited timed groups' values */

  /* per-thread state (thread.c) */
  pthread_key_t thread_key;
};

extern struct rp_agent rp RP_HIDDEN;

/* One hooked call in progress on a thread: where its return address lives and what it was. */
struct rp_frame {
  uint64_t *slot;  /* the return-address slot (the stack pointer at the function's entry) */
  uint64_t ret;    /* the original return address */
  uint32_t region;
  uint32_t flags;  /* RP_FRAME_* */
  int64_t begin_ns; /* its entry record's time (counters only where cheap) */
};
#define RP_FRAME_SILENT 0x1u   /* opened in the parent before fork: return without a record */
#define RP_FRAME_RESTORED 0x2u /* the original return address is back in the slot (unwinding) */

struct rp_thread {
  int32_t tid;
  struct rp_counter_set counters; /* this thread's own groups (counters.open 0: none) */
  uintptr_t busy;  /* nonzero (a stack address) while the agent runs on this thread: a signal
                      handler's hooked call then passes through unrecorded */
  int exited;      /* the thread-exit record is written */
  uint32_t depth;
  struct rp_frame frames[RP_MAX_DEPTH];
  /* what to add to this thread's own group's counts to continue the process's that it reported
   * while the process had one thread (rp_thread_leave_solo) */
  int has_offset;
  uint64_t own_offset[RP_MAX_VALUES];
  /* The probe's own time on this thread (record_format.h, probe_ns): the sum of its boundaries'
   * timed parts, the clock read where the boundary in progress began (0: none in progress), and
   * the boundaries counted so far. */
  int64_t probe_ns;
  int64_t boundary_start;
  uint64_t probe_boundaries;
  /* the record being written reads no counters: every region it opens or closes is clock-only */
  int clock_only;
  int64_t record_ns; /* the time of the thread's last record */
  /* regions of frames popped since the thread's last record (share.c): its next record closes them */
  uint32_t n_closing;
  uint32_t closing[RP_MAX_DEPTH];
};

/* agent.c */
RP_HIDDEN void rp_start(void); /* once: from the constructor or an earlier pthread_create */

/* config.c */
RP_HIDDEN int rp_config_read(void); /* 0: configured; -1: not for this process */

/* doorbell.c */
RP_HIDDEN void rp_doorbell_open(void);
RP_HIDDEN void rp_doorbell_ring(void); /* wakes roofprof if it sleeps (record_format.h) */

/* ring.c */
RP_HIDDEN int rp_file_create(pid_t ppid);
RP_HIDDEN void rp_file_drop_parent(void); /* in a fork child: forget the parent's mapping */
RP_HIDDEN void rp_table_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
RP_HIDDEN void rp_emit(struct rp_thread *t, int kind, int reason, uint32_t region, uint64_t sp);
/* rp_emit of a record whose time `now` (CLOCK_MONOTONIC ns, nonzero) was read already. */
RP_HIDDEN void rp_emit_at(struct rp_thread *t, int kind, int reason, uint32_t region, uint64_t sp, int64_t now);

/* share.c: scope=process with counters */
RP_HIDDEN void rp_share_lock(int bounded); /* bounded: give up after a while (a dying process) */
RP_HIDDEN void rp_share_unlock(void);
/* Under the lock: the record of `kind` (an entry of `region`, and the frames t->closing lists)
 * changes the open counts; returns 1 when it must carry the process's counts. */
RP_HIDDEN int rp_share_apply(struct rp_thread *t, int kind, uint32_t region);
RP_HIDDEN void rp_share_reset(void); /* in a fork child: nothing is open */

/* counters.c */
RP_HIDDEN void rp_counters_open_process(void);
RP_HIDDEN void rp_counters_close_process(void);
/* A snapshot (n_values: record_format.h) of the process / of one set; 0: not counted. */
RP_HIDDEN int rp_counters_read_process(uint64_t *out);
/* The calling thread's own groups into `set` (set->open 0 when they cannot all be opened). */
RP_HIDDEN void rp_counters_open_thread(struct rp_counter_set *set);
RP_HIDDEN void rp_counters_close(struct rp_counter_set *set); /* closes every one; open = 0 */
RP_HIDDEN int rp_counters_read(struct rp_counter_set *set, uint64_t *out);
/* Leaving solo (the calling thread, before the second thread exists): the process's timed
 * groups become inherited ones on this thread, continuing what its own groups counted. */
RP_HIDDEN void rp_counters_leave_solo(void);

#ifdef ROOFPROF_TEST_SEAMS
/* scripted_pmu.c: the agent's scripted PMU (ROOFPROF_AGENT_SCRIPTED_PMU, test builds only),
 * which stands in for the kernel's timed groups: their opening, their perf_event_mmap_page,
 * rdpmc, rdtsc and read(2). */
struct rp_pmc_source;
RP_HIDDEN int rp_scripted_load(void); /* 1: a script is in force; 0: none; -1: a bad one (agent off) */
RP_HIDDEN int rp_scripted_active(void);
/* The group `g` of rp.groups for the calling thread; its members' pages to `pages` (NULL for
 * an inherited group, whose events the kernel does not map). */
RP_HIDDEN void *rp_scripted_open(int g, int inherit, struct perf_event_mmap_page **pages);
RP_HIDDEN void rp_scripted_close(void *group);
/* read(2) of the group's leader (PERF_FORMAT_GROUP with both times): bytes, or a negative errno */
RP_HIDDEN long rp_scripted_read(void *group, uint64_t *buf, size_t bytes);
/* A read of the group starts (its scripted step is due): the instructions it reads the page with */
RP_HIDDEN const struct rp_pmc_source *rp_scripted_source(void *group);
#endif

/* thread.c */
RP_HIDDEN int rp_threads_init(void);
RP_HIDDEN void rp_thread_after_fork_child(void);
/* Puts original return addresses back; frames below `sp` (the caller's frame) are gone. */
RP_HIDDEN void rp_thread_restore_all(uint64_t sp);
RP_HIDDEN void rp_thread_unwind_to(uint64_t sp, int reason, int rehijack_rest);
RP_HIDDEN void rp_thread_exiting(void);
/* The calling thread's probe time so far (rp_thread.probe_ns; 0 without agent state). */
RP_HIDDEN int64_t rp_thread_probe_ns(void);
/* Before the process's second thread starts (pthread_create): the calling thread's own counts
 * from now on continue the process's it reported until now. */
RP_HIDDEN void rp_thread_leave_solo(void);
/* The calling thread asks for seccomp strict mode (1; 0: the request failed). From then on
 * only read, write, _exit and sigreturn are allowed to it and rdtsc faults (the vDSO clock),
 * so the agent does nothing for it: its hooked calls are not recorded, open frames still
 * return through the exit stub. */
RP_HIDDEN void rp_thread_sandbox(int on);
RP_HIDDEN void rp_process_exiting(void);
RP_HIDDEN void rp_process_crashing(void);  /* from a fatal signal's handler */

/* emul.c: inside roofprof's valgrind tool */
RP_HIDDEN int rp_emul_start(void); /* 0: the tool answered; no record file, no counters */
RP_HIDDEN void rp_emul_emit(const struct rp_thread *t, int kind, int reason, uint32_t region, uint64_t sp);

/* evict.c */
RP_HIDDEN void rp_evict_init(void);
RP_HIDDEN void rp_evict(void); /* before an outermost hooked call's entry record */

/* calibrate.c: the cost of the agent's own boundary, once at start (table line "C") */
RP_HIDDEN void rp_calibrate(void);

/* native.c: native counting's slots (preload/native_format.h) */
RP_HIDDEN int rp_native_counted(void);                 /* a group of the run is native counting's */
RP_HIDDEN int rp_native_group(const struct rp_group *g);
RP_HIDDEN void rp_native_read_own(const struct rp_group *g, uint64_t *out);     /* into out[g->first..] */
RP_HIDDEN void rp_native_read_process(const struct rp_group *g, uint64_t *out); /* every thread's */
RP_HIDDEN void rp_native_start(void); /* at the agent's start: the calling thread, from zero */
/* pthread_create: the new thread runs its start routine inside the agent's, which registers it;
 * 1 when *start and *arg were replaced (the caller must pass them on). */
RP_HIDDEN int rp_native_wrap(void *(**start)(void *), void **arg);
RP_HIDDEN void rp_native_after_fork_child(void);
RP_HIDDEN int rp_native_missed(void); /* threads the registry had no room for */

/* crash.c */
RP_HIDDEN void rp_crash_handlers_install(void);

/* hooks.c */
RP_HIDDEN void rp_hooks_scan(void);
/* The trampoline for a function the program looked up with dlsym, or `target` itself when the
 * agent does not measure it (or a scan holds the hook table right now). */
RP_HIDDEN void *rp_hooks_stub_for(const char *name, void *target);
/* interpose.c: rp.self_text_lo/hi from rp.self_base */
RP_HIDDEN void rp_self_text_init(void);
RP_HIDDEN int rp_match(const char *symbol); /* spec index of the first matching pattern, or -1 */

/* interpose.c */
RP_HIDDEN void *rp_real(const char *name);

/* environ.c: drop ROOFPROF_AGENT_* and the agent from LD_PRELOAD in this process's environ */
RP_HIDDEN void rp_environ_strip(void);

/* sys.c: raw system calls (no errno, no cancellation point) */
RP_HIDDEN long rp_syscall6(long nr, long a, long b, long c, long d, long e, long f);
RP_HIDDEN int64_t rp_now_ns(void);
RP_HIDDEN void rp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* log.c: roofprof's debug log, category agent (common/log_format.h) */
RP_HIDDEN void rp_trace_init(void);
RP_HIDDEN void rp_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define RP_TRACE(...)                  \
  do {                                 \
    if (rp.log_on) rp_trace(__VA_ARGS__); \
  } while (0)

/* trampoline.S */
extern char rp_stubs[] RP_HIDDEN;
extern char rp_stubs_end[] RP_HIDDEN;
extern char rp_exit_stub[] RP_HIDDEN;
#define RP_STUB_BYTES 16

#endif
