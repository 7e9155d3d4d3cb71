/* The reader's doorbell (preload/record_format.h): the agent wakes roofprof only when a ring
 * fills past its mark, when a thread waits for a slot, and when a thread or the process exits,
 * and only while roofprof says it sleeps: never a system call per record. */
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/agent/agent.h"

void rp_doorbell_open(void) {
  if (rp.doorbell) return; /* a fork child keeps its parent's mapping: the same file */
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", rp.dir, RP_DOORBELL_NAME);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return; /* no doorbell: roofprof drains on its timeout alone */
  void *m = mmap(NULL, RP_DOORBELL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m != MAP_FAILED) rp.doorbell = m;
}

void rp_doorbell_ring(void) {
  struct rp_doorbell *d = rp.doorbell;
  if (!d) return;
  /* Pairs with the reader's fence between setting `waiting` and looking at the heads. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (!__atomic_load_n(&d->waiting, __ATOMIC_RELAXED) || !__atomic_exchange_n(&d->waiting, 0, __ATOMIC_ACQ_REL))
    return;
  __atomic_fetch_add(&d->rings, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&d->seq, 1, __ATOMIC_RELEASE);
  rp_syscall6(SYS_futex, (long)&d->seq, FUTEX_WAKE, 0x7fffffff, 0, 0, 0);
}
