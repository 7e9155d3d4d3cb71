/* perf_event software counters, read in process with read() on the group leader.
 *   Every thread: a group of its own, opened at its first region event, read at each of its
 *     records (a thread without one, when no descriptor from RP_FD_FLOOR up is free, has
 *     unknown counts of its own).
 *   scope=process also: a group with inherit and inherit_thread on every thread that exists
 *     when the agent starts (normally the main thread alone: the agent starts at the first
 *     pthread_create if that comes before its constructor), so the kernel folds every thread
 *     created afterwards (and every thread that exited) into those readings, which any thread
 *     may take; read where a region opens or closes in the process (share.c), and as the
 *     thread's own while the process has one thread (agent.h, `solo`).
 * rdpmc is of no use here: software events have no hardware counter index (and this machine
 * has cap_user_rdpmc=0); see docs/preload.md. */
#include <linux/perf_event.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/agent/agent.h"

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

/* Opens the group of `tid` (0: the calling thread); its descriptors go to `fds` (n_events of
 * them, the leader first). Returns the leader, or a negative errno. */
static int open_group(pid_t tid, int inherit, int *fds) {
  int lead = -1;
  for (int i = 0; i < rp.n_events; ++i) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = rp.event_config[i];
    a.read_format = PERF_FORMAT_GROUP;
    a.exclude_hv = 1;
    a.exclude_kernel = rp.user_level ? 1 : 0;
    a.inherit = inherit ? 1 : 0;
    a.inherit_thread = inherit ? 1 : 0; /* threads only, not fork children */
    /* The leader starts disabled and is enabled once the group is complete: members added to
     * an enabled group of the running thread would not count until its next context switch
     * (seen on Linux 6.18 with task-clock leading page-faults). */
    a.disabled = i == 0;
    long fd = rp_syscall6(SYS_perf_event_open, (long)&a, tid, -1, lead, PERF_FLAG_FD_CLOEXEC, 0);
    if (fd >= 0) fd = out_of_the_way(fd, !inherit);
    if (fd < 0) {
      for (int j = 0; j < i; ++j) rp_syscall6(SYS_close, fds[j], 0, 0, 0, 0, 0);
      return (int)fd;
    }
    fds[i] = (int)fd;
    if (lead < 0) lead = (int)fd;
  }
  if (lead >= 0) rp_syscall6(SYS_ioctl, lead, PERF_EVENT_IOC_ENABLE, 0, 0, 0, 0);
  return lead;
}

void rp_counters_open_process(void) {
  rp.n_process_fds = 0;
  if (rp.n_events == 0) return;
  DIR *d = opendir("/proc/self/task");
  if (!d) {
    rp_log("cannot list /proc/self/task: process counts unknown");
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    if (rp.n_process_fds >= RP_MAX_PROCESS_GROUPS) {
      rp_log("more than %d threads before the agent started: process counts unknown", RP_MAX_PROCESS_GROUPS);
      rp_counters_close_process();
      rp.process_unknown = 1;
      break;
    }
    int fds[RP_MAX_EVENTS];
    int fd = open_group((pid_t)atoi(e->d_name), 1, fds);
    if (fd < 0) {
      rp_log("cannot open a counter group for thread %s (errno %d): process counts unknown", e->d_name, -fd);
      rp_counters_close_process();
      rp.process_unknown = 1;
      break;
    }
    rp.process_fds[rp.n_process_fds++] = fd;
  }
  closedir(d);
  rp.solo = rp.n_process_fds == 1 && !rp.process_unknown;
}

void rp_counters_close_process(void) {
  for (int i = 0; i < rp.n_process_fds; ++i) rp_syscall6(SYS_close, rp.process_fds[i], 0, 0, 0, 0, 0);
  rp.n_process_fds = 0;
  rp.solo = 0;
}

int rp_counters_read_process(uint64_t *out) {
  if (rp.n_process_fds == 0) return 0;
  for (int i = 0; i < rp.n_events; ++i) out[i] = 0;
  for (int g = 0; g < rp.n_process_fds; ++g) {
    uint64_t one[RP_MAX_EVENTS];
    if (!rp_counters_read(rp.process_fds[g], one)) return 0;
    for (int i = 0; i < rp.n_events; ++i) out[i] += one[i];
  }
  return 1;
}

int rp_counters_open_thread(int *fds) {
  if (rp.n_events == 0) return -1;
  int fd = open_group(0, 0, fds);
  return fd < 0 ? -1 : fd;
}

void rp_counters_close_thread(int *fds) {
  if (fds[0] < 0) return;
  for (int i = 0; i < rp.n_events; ++i) rp_syscall6(SYS_close, fds[i], 0, 0, 0, 0, 0);
  fds[0] = -1;
}

int rp_counters_read(int fd, uint64_t *out) {
  if (fd < 0) return 0;
  uint64_t buf[1 + RP_MAX_EVENTS];
  long n;
  /* An inherited group whose thread is exiting meanwhile reads ECHILD (seen on Linux 6.18 while
   * threads of the program end): it is transient, the exit folds the thread's counts in. */
  for (int tries = 0;; ++tries) {
    n = rp_syscall6(SYS_read, fd, (long)buf, (long)((1 + rp.n_events) * sizeof(uint64_t)), 0, 0, 0);
    if (n != -ECHILD || tries == 1000) break;
    if (tries >= 8) rp_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
  }
  if (n != (long)((1 + rp.n_events) * sizeof(uint64_t)) || buf[0] != (uint64_t)rp.n_events) return 0;
  for (int i = 0; i < rp.n_events; ++i) out[i] = buf[1 + i];
  return 1;
}
