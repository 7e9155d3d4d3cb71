/* Boundary cost against the number of threads: THREADS threads make CALLS calls of tiny() in
 * all (CALLS / THREADS each), at once, and the program prints the CPU time of that phase
 * (all threads, CLOCK_PROCESS_CPUTIME_ID) and its wall time. THREADS 0: the main thread makes
 * them, and the program has no other thread (a serial program).
 *   bench_thread_calls THREADS CALLS
 * bench/overhead/threads.py runs it bare and under roofprof. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long per_thread;
static pthread_barrier_t start;
static volatile double sink;

__attribute__((noinline)) double tiny(double x) { return x * 1.0000001 + 1.0; }

static void *worker(void *arg) {
  (void)arg;
  double s = 0;
  pthread_barrier_wait(&start);
  for (long i = 0; i < per_thread; ++i) s += tiny(s);
  sink = s;
  return NULL;
}

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1;
  const long calls = argc > 2 ? atol(argv[2]) : 100000;
  if (threads == 0) {  /* serial: no thread but main */
    per_thread = calls;
    const double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
    double s = 0;
    for (long i = 0; i < calls; ++i) s += tiny(s);
    sink = s;
    printf("calls=%ld cpu_s=%.6f wall_s=%.6f\n", calls, seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0,
           seconds(CLOCK_MONOTONIC) - wall0);
    return 0;
  }
  if (threads < 1 || threads > 4096 || calls < threads) {
    fprintf(stderr, "usage: bench_thread_calls THREADS CALLS\n");
    return 2;
  }
  per_thread = calls / threads;
  pthread_t *t = malloc(sizeof(pthread_t) * (size_t)threads);
  pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, worker, NULL);
  const double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
  pthread_barrier_wait(&start);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  const double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0, wall = seconds(CLOCK_MONOTONIC) - wall0;
  printf("calls=%ld cpu_s=%.6f wall_s=%.6f\n", per_thread * threads, cpu, wall);
  free(t);
  return 0;
}
