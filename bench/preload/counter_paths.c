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
 *   page_group     the agent's read of a hardware group of 7 events through their pages
 *                  (preload/pmc_page.h: seqlocks, sign extension, the time delta from a real
 *                  rdtsc), on pages filled in memory as the kernel fills them for a group on
 *                  its counters, with a function standing in for rdpmc: this machine has no
 *                  hardware events to map (the rdpmc instructions themselves are not in it)
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

#include "preload/pmc_page.h"

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

enum { GROUP = 7 };

static uint64_t stand_in_rdpmc(void *ctx, uint32_t counter) { return ((uint64_t *)ctx)[counter]; }

static uint64_t real_rdtsc(void *ctx) {
  (void)ctx;
  uint32_t lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

/* GROUP pages as the kernel writes them for a group on its counters (48-bit counters). */
static struct perf_event_mmap_page *group_pages(void) {
  struct perf_event_mmap_page *pages = mmap(NULL, 4096 * GROUP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (int k = 0; k < GROUP; ++k) {
    struct perf_event_mmap_page *pc = (struct perf_event_mmap_page *)((char *)pages + 4096 * k);
    pc->index = (uint32_t)k + 1;
    pc->offset = 140737488355327ll;
    pc->cap_user_rdpmc = 1;
    pc->cap_user_time = 1;
    pc->pmc_width = 48;
    pc->time_shift = 10;
    pc->time_mult = 341;
  }
  return pages;
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

enum { VDSO, SYSCALL, READ_THREAD, READ_INHERIT, READ_ONE, CPUTIME, MMAP_PAGE, PAGE_GROUP, N_PATHS };
static const char *names[N_PATHS] = {"vdso_clock", "syscall",        "read_thread", "read_inherit",
                                     "read_one",   "thread_cputime", "mmap_page",   "page_group"};

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
  struct perf_event_mmap_page *hw = group_pages();
  const volatile struct perf_event_mmap_page *hw_pages[GROUP];
  for (int k = 0; k < GROUP; ++k) hw_pages[k] = (struct perf_event_mmap_page *)((char *)hw + 4096 * k);
  uint64_t counters[GROUP + 1] = {0}, counts[GROUP];
  for (int k = 0; k <= GROUP; ++k) counters[k] = 0x800000000001ull + (uint64_t)k;
  const struct rp_pmc_source source = {stand_in_rdpmc, real_rdtsc, counters};
  struct rp_pmc_reading reading;
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
          case PAGE_GROUP:
            sink += (uint64_t)rp_pmc_read_group(hw_pages, GROUP, &source, counts, &reading) + counts[GROUP - 1];
            break;
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
