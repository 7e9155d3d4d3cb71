/* perf_event software counters, read in process with read() on the group leader.
 *   scope=process: one group opened by the constructor on the main thread with inherit and
 *     inherit_thread, so the kernel folds every thread created afterwards (and every thread
 *     that exited) into one reading that any thread may take: one system call per boundary.
 *   scope=thread: one group per thread, opened at the thread's first region event.
 * rdpmc is of no use here: software events have no hardware counter index (and this machine
 * has cap_user_rdpmc=0); see docs/preload.md. */
#include <linux/perf_event.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/agent/agent.h"

#define RP_FD_FLOOR 900

/* Moves a descriptor to a number the program is unlikely to reuse: a program that closes
 * every descriptor and opens files again would otherwise get ours, and the next counter read
 * would consume its data. Keeps `fd` when the move is not possible. */
static long out_of_the_way(long fd) {
  long high = rp_syscall6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, RP_FD_FLOOR, 0, 0, 0);
  if (high < 0) return fd;
  rp_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
  return high;
}

static int open_group(int inherit) {
  int lead = -1;
  int fds[RP_MAX_EVENTS];
  for (int i = 0; i < rp.n_events; ++i) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = rp.event_config[i];
    a.read_format = PERF_FORMAT_GROUP;
    a.exclude_hv = 1;
    a.inherit = inherit ? 1 : 0;
    a.inherit_thread = inherit ? 1 : 0; /* threads only, not fork children */
    /* The leader starts disabled and is enabled once the group is complete: members added to
     * an enabled group of the running thread would not count until its next context switch
     * (seen on Linux 6.18 with task-clock leading page-faults). */
    a.disabled = i == 0;
    long fd = rp_syscall6(SYS_perf_event_open, (long)&a, 0, -1, lead, PERF_FLAG_FD_CLOEXEC, 0);
    if (fd >= 0) fd = out_of_the_way(fd);
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

int rp_counters_open_process(void) {
  if (rp.n_events == 0) return -1;
  int fd = open_group(1);
  if (fd < 0) rp_log("cannot open the process counter group (errno %d): counts unknown", -fd);
  return fd;
}

int rp_counters_open_thread(void) {
  if (rp.n_events == 0) return -1;
  int fd = open_group(0);
  return fd < 0 ? -1 : fd;
}

int rp_counters_read(int fd, uint64_t *out) {
  if (fd < 0) return 0;
  uint64_t buf[1 + RP_MAX_EVENTS];
  long n = rp_syscall6(SYS_read, fd, (long)buf, (long)((1 + rp.n_events) * sizeof(uint64_t)), 0, 0, 0);
  if (n != (long)((1 + rp.n_events) * sizeof(uint64_t)) || buf[0] != (uint64_t)rp.n_events) return 0;
  for (int i = 0; i < rp.n_events; ++i) out[i] = buf[1 + i];
  return 1;
}
