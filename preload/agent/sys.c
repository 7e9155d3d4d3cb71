/* Raw system calls and small helpers. The trampolines' C code calls the kernel only through
 * rp_syscall6: it never sets errno (a hooked function's errno reaches its caller intact) and
 * is not a cancellation point. */
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/agent/agent.h"

long rp_syscall6(long nr, long a, long b, long c, long d, long e, long f) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

int64_t rp_now_ns(void) {
  struct timespec ts;
  /* The vDSO: no system call, and errno is left alone on success. */
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void rp_log(const char *fmt, ...) {
  char buf[512];
  int n = snprintf(buf, sizeof buf, "roofprof-agent[%d]: ", (int)rp.pid);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && n < (int)sizeof buf) n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  if (n < 0) return;
  buf[n++] = '\n';
  rp_syscall6(SYS_write, 2, (long)buf, n, 0, 0, 0);
}

/* The compiler may emit memset/memcpy calls for struct initialisation and copies. These
 * private copies keep the agent's own code free of the C library's AVX string functions,
 * whose vzeroupper would clobber the upper halves of a hooked function's vector arguments. */
RP_HIDDEN void *memset(void *dst, int c, size_t n) {
  void *d = dst;
  __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
  return dst;
}

RP_HIDDEN void *memcpy(void *dst, const void *src, size_t n) {
  void *d = dst;
  __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
  return dst;
}
