/* Native counting's counts in the agent (preload/native_format.h, docs/native.md). The
 * trampolines add each thread's flops to its own thread control block; the agent reads
 *   - a thread's own: its block's slots, plain loads (no system call);
 *   - the process's (scope=process): the threads that exited (their last counts, added at their
 *     exit) plus every live thread's counts since the agent saw it start. The agent sees threads
 *     start through its pthread_create (the start routine runs inside rp_native_thread_main), and
 *     the thread that started the agent from the beginning of the process (its block was zeroed
 *     by the dynamic linker). Threads started otherwise (a raw clone) are not in the process's
 *     counts; their own are exact.
 * The registry is guarded by one lock, taken at thread start and exit and for process readings
 * (where a region opens on its first thread or closes on its last), never at an own reading. */
#include <stdlib.h>
#include <string.h>

#include "preload/agent/agent.h"

#define RP_NATIVE_MAX_THREADS 4096

struct native_thread {
  volatile uint64_t *slots; /* NULL: free */
  uint64_t base[RP_NATIVE_SLOTS];
};

static struct {
  pthread_mutex_t lock;
  struct native_thread threads[RP_NATIVE_MAX_THREADS];
  int high; /* entries [0, high) may be used */
  uint64_t exited[RP_NATIVE_SLOTS];
  int missed; /* threads that could not be registered: process counts lack their work */
  pthread_key_t key;
} reg = {.lock = PTHREAD_MUTEX_INITIALIZER};

static volatile uint64_t *own_slots(void) {
  char *tcb;
  __asm__("mov %%fs:0x10, %0" : "=r"(tcb)); /* tcbhead_t.self */
  return (volatile uint64_t *)(tcb + RP_NATIVE_TCB_OFFSET);
}

int rp_native_group(const struct rp_group *g) { return rp.events[g->first].type == RP_NATIVE_EVENT_TYPE; }

int rp_native_counted(void) {
  for (int gi = 0; gi < rp.n_groups; ++gi)
    if (rp_native_group(&rp.groups[gi])) return 1;
  return 0;
}

void rp_native_read_own(const struct rp_group *g, uint64_t *out) {
  volatile uint64_t *s = own_slots();
  for (int k = 0; k < g->count; ++k) out[g->first + k] = s[rp.events[g->first + k].config % RP_NATIVE_SLOTS];
}

void rp_native_read_process(const struct rp_group *g, uint64_t *out) {
  uint64_t sum[RP_NATIVE_SLOTS];
  pthread_mutex_lock(&reg.lock);
  memcpy(sum, reg.exited, sizeof sum);
  for (int i = 0; i < reg.high; ++i) {
    volatile uint64_t *s = reg.threads[i].slots;
    if (!s) continue;
    for (int k = 0; k < RP_NATIVE_SLOTS; ++k) sum[k] += s[k] - reg.threads[i].base[k];
  }
  pthread_mutex_unlock(&reg.lock);
  for (int k = 0; k < g->count; ++k) out[g->first + k] = sum[rp.events[g->first + k].config % RP_NATIVE_SLOTS];
}

/* The calling thread into the registry, counting from `from_zero` ? 0 : now. */
static void enter(int from_zero) {
  volatile uint64_t *s = own_slots();
  pthread_mutex_lock(&reg.lock);
  int i = 0;
  while (i < reg.high && reg.threads[i].slots) ++i;
  if (i == RP_NATIVE_MAX_THREADS) {
    reg.missed++;
  } else {
    for (int k = 0; k < RP_NATIVE_SLOTS; ++k) reg.threads[i].base[k] = from_zero ? 0 : s[k];
    reg.threads[i].slots = s;
    if (i == reg.high) reg.high++;
    pthread_setspecific(reg.key, (void *)(uintptr_t)(i + 1));
  }
  pthread_mutex_unlock(&reg.lock);
}

/* Thread exit (a thread-specific key's destructor: return from the start routine or
 * pthread_exit): its counts become the exited threads'. */
static void leave(void *entry) {
  int i = (int)(uintptr_t)entry - 1;
  pthread_mutex_lock(&reg.lock);
  if (i >= 0 && i < reg.high && reg.threads[i].slots) {
    volatile uint64_t *s = reg.threads[i].slots;
    for (int k = 0; k < RP_NATIVE_SLOTS; ++k) reg.exited[k] += s[k] - reg.threads[i].base[k];
    reg.threads[i].slots = NULL;
  }
  pthread_mutex_unlock(&reg.lock);
}

void rp_native_start(void) {
  if (!rp_native_counted() || pthread_key_create(&reg.key, leave) != 0) return;
  enter(1);
}

struct native_start {
  void *(*start)(void *);
  void *arg;
};

static void *thread_main(void *p) {
  struct native_start s = *(struct native_start *)p;
  free(p);
  enter(0);
  return s.start(s.arg);
}

int rp_native_wrap(void *(**start)(void *), void **arg) {
  if (!rp.enabled || !rp_native_counted()) return 0;
  struct native_start *s = malloc(sizeof *s);
  if (!s) return 0;
  s->start = *start;
  s->arg = *arg;
  *start = thread_main;
  *arg = s;
  return 1;
}

void rp_native_after_fork_child(void) {
  if (!rp_native_counted()) return;
  pthread_mutex_init(&reg.lock, NULL);
  memset(reg.threads, 0, sizeof reg.threads);
  memset(reg.exited, 0, sizeof reg.exited);
  reg.high = 0;
  reg.missed = 0;
  enter(1); /* the child's counts are the forking thread's, from the beginning */
}

int rp_native_missed(void) { return reg.missed; }
