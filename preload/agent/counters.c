/* perf_event counters, read in process.
 *   Every thread: groups of its own (the software events' and each hardware group of the run),
 *     opened at its first region event, read at each of its records (a thread whose groups
 *     cannot all be opened, e.g. when no descriptor from RP_FD_FLOOR up is free, has unknown
 *     counts of its own).
 *   scope=process also: groups with inherit and inherit_thread on every thread that exists
 *     when the agent starts (normally the main thread alone: the agent starts at the first
 *     pthread_create if that comes before its constructor), so the kernel folds every thread
 *     created afterwards (and every thread that exited) into those readings, which any thread
 *     may take; read where a region opens or closes in the process (share.c), and as the
 *     thread's own while the process has one thread (agent.h, `solo`). With hardware (timed)
 *     groups, while solo the process's timed groups are the thread's own (read through their
 *     pages); inherited ones open at the first pthread_create (rp_counters_leave_solo).
 * Software groups are read with read() on the leader: software events have no hardware counter
 * index. A thread's own hardware (timed) groups are mapped and read with rdpmc through their
 * events' perf_event_mmap_page where the kernel allows it (preload/pmc_page.h), with read()
 * otherwise; inherited groups with read() (the kernel does not map inherited events). See
 * docs/preload.md, "Counting". */
#include <linux/perf_event.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/agent/agent.h"
#include "preload/pmc_page.h"

#define RP_FD_FLOOR 900

/* Moves a descriptor to a number the program is unlikely to reuse: a program that closes
 * every descriptor and opens files again would otherwise get ours, and the next counter read
 * would consume its data. When the move is not possible, keeps `fd`, or with `must` closes it
 * and fails: a thread's own group (one per thread) never takes the program's low numbers, which
 * a program of many threads would run out of (RLIMIT_NOFILE). */
static long out_of_the_way(long fd, int must) {
  long high = rp_syscall6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, RP_FD_FLOOR, 0, 0, 0);
  rp_syscall6(SYS_close, high < 0 ? (must ? fd : -1) : fd, 0, 0, 0, 0, 0);
  if (high < 0) return must ? high : fd;
  return high;
}

static void close_fds(const int *fds, int n) {
  for (int j = 0; j < n; ++j)
    if (fds[j] >= 0) rp_syscall6(SYS_close, fds[j], 0, 0, 0, 0, 0);
}

/* Opens group `g` of rp.groups on `tid` (0: the calling thread) into set->fds. Returns its
 * leader, or a negative errno. */
static int open_group(pid_t tid, int inherit, const struct rp_group *g, int *fds) {
  int lead = -1;
  for (int k = 0; k < g->count; ++k) {
    const struct rp_event *e = &rp.events[g->first + k];
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = e->type;
    a.config = e->config;
    a.config1 = e->config1;
    a.read_format = PERF_FORMAT_GROUP | (g->timed ? PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING : 0);
    a.exclude_hv = 1;
    a.exclude_kernel = (e->flags & RP_EVENT_EXCLUDE_KERNEL) ? 1 : 0;
    a.exclusive = (e->flags & RP_EVENT_EXCLUSIVE) ? 1 : 0;
    a.inherit = inherit ? 1 : 0;
    a.inherit_thread = inherit ? 1 : 0; /* threads only, not fork children */
    /* The leader starts disabled and is enabled once the group is complete: members added to
     * an enabled group of the running thread would not count until its next context switch
     * (seen on Linux 6.18 with task-clock leading page-faults). */
    a.disabled = k == 0;
    long fd = rp_syscall6(SYS_perf_event_open, (long)&a, tid, -1, lead, PERF_FLAG_FD_CLOEXEC, 0);
    if (fd >= 0) fd = out_of_the_way(fd, !inherit);
    if (fd < 0) {
      close_fds(fds, k);
      return (int)fd;
    }
    fds[k] = (int)fd;
    if (lead < 0) lead = (int)fd;
  }
  if (lead >= 0) rp_syscall6(SYS_ioctl, lead, PERF_EVENT_IOC_ENABLE, 0, 0, 0, 0);
  return lead;
}

/* A timed group's pages, for rdpmc reads; a page that cannot be mapped leaves the group to read(). */
static void map_pages(struct rp_counter_set *set, const struct rp_group *g) {
  for (int k = 0; k < g->count; ++k) {
    long m = rp_syscall6(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, set->fds[g->first + k], 0);
    if (m < 0 && m > -4096) {
      for (int j = 0; j < k; ++j) rp_syscall6(SYS_munmap, (long)set->pages[g->first + j], 4096, 0, 0, 0, 0);
      for (int j = 0; j < g->count; ++j) set->pages[g->first + j] = NULL;
      return;
    }
    set->pages[g->first + k] = (struct perf_event_mmap_page *)m;
  }
}

/* Every group of the run for `tid` into `set` (only the `timed` ones, or all but those: 1 and
 * 0; -1: all); set->open 0 (nothing left open) when one fails: returns its negative errno. */
static int open_groups(pid_t tid, int inherit, struct rp_counter_set *set, int timed) {
  for (int gi = 0; gi < rp.n_groups; ++gi) {
    const struct rp_group *g = &rp.groups[gi];
    if (timed >= 0 && g->timed != timed) continue;
#ifdef ROOFPROF_TEST_SEAMS
    if (g->timed && rp_scripted_active()) {
      set->scripted[gi] = rp_scripted_open(gi, inherit, inherit ? NULL : &set->pages[g->first]);
      if (set->scripted[gi]) continue;
      set->open = 1;
      rp_counters_close(set);
      return -ENOENT;
    }
#endif
    if (rp_native_group(g)) continue; /* memory of the thread's own, nothing to open (native.c) */
    int lead = open_group(tid, inherit, g, &set->fds[g->first]);
    if (lead < 0) {
      set->open = 1;
      rp_counters_close(set);
      return lead;
    }
    if (g->timed && !inherit) map_pages(set, g);
  }
  set->open = rp.n_groups > 0;
  return 0;
}

static int open_set(pid_t tid, int inherit, struct rp_counter_set *set, int no_timed) {
  memset(set, 0, sizeof *set);
  for (int i = 0; i < RP_MAX_EVENTS; ++i) set->fds[i] = -1;
  set->no_timed = no_timed;
  set->process = inherit;
  return open_groups(tid, inherit, set, no_timed ? 0 : -1);
}

static int count_threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] >= '0' && e->d_name[0] <= '9';
  closedir(d);
  return n;
}

void rp_counters_open_process(void) {
  rp.n_process_sets = 0;
  rp.solo_set = NULL;
  for (int i = 0; i < RP_MAX_VALUES; ++i) rp.process_offset[i] = 0;
  if (rp.n_events == 0) return;
  /* One thread (solo): its own timed groups will be the process's, read without a system call
   * (inherited events cannot be mapped); the inherited ones open when a second thread starts. */
  const int no_timed = rp.n_times > 0 && count_threads() == 1;
  DIR *d = opendir("/proc/self/task");
  if (!d) {
    rp_log("cannot list /proc/self/task: process counts unknown");
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    if (rp.n_process_sets >= RP_MAX_PROCESS_GROUPS) {
      rp_log("more than %d threads before the agent started: process counts unknown", RP_MAX_PROCESS_GROUPS);
      rp_counters_close_process();
      rp.process_unknown = 1;
      break;
    }
    int err = open_set((pid_t)atoi(e->d_name), 1, &rp.process_sets[rp.n_process_sets], no_timed);
    if (err < 0) {
      rp_log("cannot open a counter group for thread %s (errno %d): process counts unknown", e->d_name, -err);
      rp_counters_close_process();
      rp.process_unknown = 1;
      break;
    }
    rp.n_process_sets++;
  }
  closedir(d);
  rp.solo = rp.n_process_sets == 1 && !rp.process_unknown;
  if (!rp.solo && rp.n_process_sets > 0 && rp.process_sets[0].no_timed) { /* a thread came meanwhile */
    rp_log("threads started while the agent opened its counters: process counts unknown");
    rp_counters_close_process();
    rp.process_unknown = 1;
  }
}

void rp_counters_close_process(void) {
  for (int i = 0; i < rp.n_process_sets; ++i) rp_counters_close(&rp.process_sets[i]);
  rp.n_process_sets = 0;
  rp.solo = 0;
  rp.solo_set = NULL;
}

static int read_groups(struct rp_counter_set *set, int timed, uint64_t *out);

int rp_counters_read_process(uint64_t *out) {
  if (rp.n_process_sets == 0) return 0;
  for (int i = 0; i < rp.n_values; ++i) out[i] = 0;
  for (int s = 0; s < rp.n_process_sets; ++s) {
    struct rp_counter_set *set = &rp.process_sets[s];
    uint64_t one[RP_MAX_VALUES];
    if (!set->open) return 0;
    if (set->no_timed) { /* solo: the timed groups are the thread's own */
      if (!read_groups(set, 0, one) || !rp.solo_set || !rp.solo_set->open || !read_groups(rp.solo_set, 1, one)) return 0;
    } else {
      if (!rp_counters_read(set, one)) return 0;
      if (s == 0)
        for (int i = 0; i < rp.n_values; ++i) one[i] += rp.process_offset[i];
    }
    for (int i = 0; i < rp.n_values; ++i) out[i] += one[i]; /* times too, as perf sums threads */
  }
  return 1;
}

void rp_counters_open_thread(struct rp_counter_set *set) {
  if (rp.n_events == 0 || open_set(0, 0, set, 0) < 0) set->open = 0;
  if (set->open && rp.solo && rp.n_process_sets == 1 && rp.process_sets[0].no_timed) rp.solo_set = set;
}

void rp_counters_leave_solo(void) {
  struct rp_counter_set *set = &rp.process_sets[0];
  if (rp.n_process_sets != 1 || !set->no_timed) return;
  /* What the solo thread's own timed groups counted so far (none: nothing to continue). */
  uint64_t before[RP_MAX_VALUES];
  const int from_own = rp.solo_set != NULL;
  const int counted = !from_own || rp_counters_read_process(before);
  set->no_timed = 0;
  rp.solo_set = NULL;
  for (int i = 0; i < rp.n_values; ++i) rp.process_offset[i] = 0;
  uint64_t now[RP_MAX_VALUES];
  if (!counted || open_groups(0, 1, set, 1) < 0 || !read_groups(set, 1, now)) {
    rp_log("cannot continue the process's hardware counts on inherited groups: process counts unknown");
    rp_counters_close_process();
    rp.process_unknown = 1;
    return;
  }
  if (!from_own) return;
  /* the inherited groups start from (about) 0: continue the solo thread's counts and times */
  for (int gi = 0; gi < rp.n_groups; ++gi) {
    const struct rp_group *g = &rp.groups[gi];
    if (!g->timed) continue;
    for (int k = 0; k < g->count; ++k) rp.process_offset[g->first + k] = before[g->first + k] - now[g->first + k];
    for (int j = 0; j < 2; ++j) {
      const int i = rp.n_events + 2 * g->timed_index + j;
      rp.process_offset[i] = before[i] - now[i];
    }
  }
}

void rp_counters_close(struct rp_counter_set *set) {
  if (!set->open) return;
  for (int gi = 0; gi < rp.n_groups; ++gi) {
    const struct rp_group *g = &rp.groups[gi];
#ifdef ROOFPROF_TEST_SEAMS
    if (set->scripted[gi]) rp_scripted_close(set->scripted[gi]);
    set->scripted[gi] = NULL;
#endif
    for (int k = 0; k < g->count; ++k) {
      struct perf_event_mmap_page **page = &set->pages[g->first + k];
      if (*page) rp_syscall6(SYS_munmap, (long)*page, 4096, 0, 0, 0, 0);
      *page = NULL;
    }
    close_fds(&set->fds[g->first], g->count);
    for (int k = 0; k < g->count; ++k) set->fds[g->first + k] = -1;
  }
  set->open = 0;
}

/* read(2) of a group leader: nr, [time_enabled, time_running,] values. An inherited group whose
 * thread is exiting meanwhile reads ECHILD (seen on Linux 6.18 while threads of the program end):
 * it is transient, the exit folds the thread's counts in. */
static long read_leader(int fd, uint64_t *buf, size_t bytes) {
  long n;
  for (int tries = 0;; ++tries) {
    n = rp_syscall6(SYS_read, fd, (long)buf, (long)bytes, 0, 0, 0);
    if (n != -ECHILD || tries == 1000) break;
    if (tries >= 8) rp_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
  }
  return n;
}

static inline uint64_t real_rdpmc(void *ctx, uint32_t counter) {
  (void)ctx;
  uint32_t lo, hi;
  __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
  return (uint64_t)hi << 32 | lo;
}

static inline uint64_t real_rdtsc(void *ctx) {
  (void)ctx;
  uint32_t lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

static const struct rp_pmc_source real_source = {real_rdpmc, real_rdtsc, NULL};

/* Group `gi` of `set` into the snapshot `out`: its counts at out[first..], a timed group's times
 * at out[n_events + 2 timed_index]. */
static int read_group(struct rp_counter_set *set, int gi, uint64_t *out) {
  const struct rp_group *g = &rp.groups[gi];
  if (rp_native_group(g)) {
    /* The process's counts once, in the first of the process's sets (they are summed) */
    if (!set->process) rp_native_read_own(g, out);
    else if (set == &rp.process_sets[0]) rp_native_read_process(g, out);
    else
      for (int k = 0; k < g->count; ++k) out[g->first + k] = 0;
    return 1;
  }
  const struct rp_pmc_source *src = &real_source;
#ifdef ROOFPROF_TEST_SEAMS
  if (set->scripted[gi]) src = rp_scripted_source(set->scripted[gi]);
#endif
  if (g->timed && set->pages[g->first]) {
    struct rp_pmc_reading r;
    if (rp_pmc_read_group((const volatile struct perf_event_mmap_page *const *)&set->pages[g->first], g->count, src,
                          &out[g->first], &r)) {
      out[rp.n_events + 2 * g->timed_index] = r.enabled;
      out[rp.n_events + 2 * g->timed_index + 1] = r.running;
      return 1;
    }
  }
  uint64_t buf[3 + RP_MAX_EVENTS];
  const int head = g->timed ? 3 : 1;
  const size_t want = (size_t)(head + g->count) * sizeof(uint64_t);
  long n;
#ifdef ROOFPROF_TEST_SEAMS
  if (set->scripted[gi])
    n = rp_scripted_read(set->scripted[gi], buf, want);
  else
#endif
    n = read_leader(set->fds[g->first], buf, want);
  if (n != (long)want || buf[0] != (uint64_t)g->count) return 0;
  for (int k = 0; k < g->count; ++k) out[g->first + k] = buf[head + k];
  if (g->timed) {
    out[rp.n_events + 2 * g->timed_index] = buf[1];
    out[rp.n_events + 2 * g->timed_index + 1] = buf[2];
  }
  return 1;
}

/* The `timed` groups of `set` (1), the others (0), or all (-1). */
static int read_groups(struct rp_counter_set *set, int timed, uint64_t *out) {
  for (int gi = 0; gi < rp.n_groups; ++gi) {
    if (timed >= 0 && rp.groups[gi].timed != timed) continue;
    if (!read_group(set, gi, out)) return 0;
  }
  return 1;
}

int rp_counters_read(struct rp_counter_set *set, uint64_t *out) {
  if (!set->open) return 0;
  return read_groups(set, set->no_timed ? 0 : -1, out);
}
