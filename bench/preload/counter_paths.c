/* bench_counter_paths [N]: what one counter snapshot at a region boundary can cost, per way
 * of taking it, in this process (docs/benchmarks.md, "In-process agent"). Prints one line per
 * path with CPU ns per snapshot (this thread's CPU time: other processes on a busy machine do not
 * count; median of 7 rounds of N, paths interleaved within a round), then
 * what the perf mmap page of a per-thread task-clock event offers here:
 *   vdso_clock     clock_gettime(CLOCK_MONOTONIC): the agent's clock, no system call
 *   syscall        getppid(): the floor of any system call
 *   read_thread    read() of a {task-clock, page-faults, context-switches} group of this
 *                  thread (PERF_FORMAT_GROUP: one call for the three; --scope thread)
 *   read_inherit   the same group opened with inherit (--scope process)
 *   read_one       read() of task-clock alone (no group): the cheapest perf read
 *   thread_cputime clock_gettime(CLOCK_THREAD_CPUTIME_ID): a system call on x86
 *   mmap_page      the seqlock-protected fields of the task-clock event's mmap page (what a
 *                  user-space reading would use: no system call)
 * and whether the page's sequence number (`lock`) moves when the thread takes page faults
 * (it would have to, to detect new faults without a read) and when it sleeps. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const uint64_t events[3] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
                                   PERF_COUNT_SW_CONTEXT_SWITCHES};

static int open_group(int inherit) {
  int lead = -1;
  for (int i = 0; i < 3; ++i) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = events[i];
    a.read_format = PERF_FORMAT_GROUP;
    a.inherit = (unsigned)inherit;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, lead, 0);
    if (fd < 0) {
      perror("perf_event_open");
      exit(1);
    }
    if (lead < 0) lead = fd;
  }
  return lead;
}

static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

enum { VDSO, SYSCALL, READ_THREAD, READ_INHERIT, READ_ONE, CPUTIME, MMAP_PAGE, N_PATHS };
static const char *names[N_PATHS] = {"vdso_clock", "syscall",        "read_thread", "read_inherit",
                                     "read_one",   "thread_cputime", "mmap_page"};

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  int thread_fd = open_group(0), inherit_fd = open_group(1);
  struct perf_event_attr one;
  memset(&one, 0, sizeof one);
  one.size = sizeof one;
  one.type = PERF_TYPE_SOFTWARE;
  one.config = PERF_COUNT_SW_TASK_CLOCK;
  one.exclude_hv = 1;
  int one_fd = (int)syscall(SYS_perf_event_open, &one, 0, -1, -1, 0);
  if (one_fd < 0) {
    perror("perf_event_open");
    return 1;
  }
  volatile struct perf_event_mmap_page *page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, thread_fd, 0);
  if (page == MAP_FAILED) {
    perror("mmap of the task-clock event");
    return 1;
  }
  int inherit_mmap = mmap(NULL, 4096, PROT_READ, MAP_SHARED, inherit_fd, 0) != MAP_FAILED;
  enum { ROUNDS = 7 };
  double ns[N_PATHS][ROUNDS];
  uint64_t buf[4], sink = 0;
  struct timespec ts;
  for (int r = 0; r < ROUNDS; ++r) {
    for (int p = 0; p < N_PATHS; ++p) {
      double t0 = cpu_ns();
      for (long i = 0; i < n; ++i) {
        switch (p) {
          case VDSO: clock_gettime(CLOCK_MONOTONIC, &ts); sink += (uint64_t)ts.tv_nsec; break;
          case SYSCALL: sink += (uint64_t)syscall(SYS_getppid); break;
          case READ_THREAD: sink += (uint64_t)read(thread_fd, buf, sizeof buf); break;
          case READ_INHERIT: sink += (uint64_t)read(inherit_fd, buf, sizeof buf); break;
          case READ_ONE: sink += (uint64_t)read(one_fd, buf, sizeof buf[0]); break;
          case CPUTIME: clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); sink += (uint64_t)ts.tv_nsec; break;
          case MMAP_PAGE: {
            uint32_t seq;
            do {
              seq = page->lock;
              __atomic_signal_fence(__ATOMIC_SEQ_CST);
              sink += (uint64_t)page->offset + page->time_running + page->index;
              __atomic_signal_fence(__ATOMIC_SEQ_CST);
            } while (page->lock != seq);
            break;
          }
        }
      }
      ns[p][r] = (cpu_ns() - t0) / (double)n;
    }
  }
  for (int p = 0; p < N_PATHS; ++p) {
    qsort(ns[p], ROUNDS, sizeof(double), cmp);
    printf("%-15s %8.0f ns\n", names[p], ns[p][ROUNDS / 2]);
  }
  printf("cap_user_time=%u cap_user_time_zero=%u cap_user_rdpmc=%u index=%u mmap_of_inherited_event=%s\n",
         (unsigned)page->cap_user_time, (unsigned)page->cap_user_time_zero, (unsigned)page->cap_user_rdpmc,
         (unsigned)page->index, inherit_mmap ? "yes" : "no");
  uint64_t before[4], after[4];
  uint32_t lock0 = page->lock;
  read(thread_fd, before, sizeof before);
  long pagesz = sysconf(_SC_PAGESIZE);
  char *fresh = mmap(NULL, (size_t)(256 * pagesz), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (long i = 0; i < 256; ++i) fresh[i * pagesz] = (char)i;
  uint32_t lock1 = page->lock;
  read(thread_fd, after, sizeof after);
  usleep(1000);
  uint32_t lock2 = page->lock;
  printf("page faults taken=%llu: lock %u -> %u; 1 ms sleep: lock %u -> %u\n",
         (unsigned long long)(after[2] - before[2]), lock0, lock1, lock1, lock2);
  return sink == 42 ? 2 : 0;
}
