/* Functions the agent interposes (exported from libroofprof-preload.so, found before the C
 * library's by the dynamic linker): dlopen/dlmopen (dlopen_call.S; hook what was loaded),
 * dlclose (never while a scan runs), the longjmp family (close the shadow-stack frames
 * the jump abandons), the unwinder entry points and __cxa_begin_catch (exceptions through
 * hooked calls), pthread_exit (the thread's frames are abandoned), prctl and syscall (a thread
 * entering seccomp strict mode is left alone from then on). Each forwards to the next
 * definition of its name (dlsym RTLD_NEXT, looked up once, with a recursion guard). */
#include <dlfcn.h>
#include <link.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "preload/agent/agent.h"

/* ---- the real functions ------------------------------------------------------------------ */

struct real_fn {
  const char *name;
  void *fn;
};
static struct real_fn reals[] = {
    {"dlopen", NULL},          {"dlmopen", NULL},
    {"dlclose", NULL},         {"longjmp", NULL},
    {"_longjmp", NULL},        {"siglongjmp", NULL},
    {"__longjmp_chk", NULL},   {"_Unwind_RaiseException", NULL},
    {"_Unwind_Resume_or_Rethrow", NULL}, {"__cxa_begin_catch", NULL},
    {"pthread_exit", NULL},    {"sigaction", NULL},
    {"signal", NULL},          {"pthread_create", NULL},
    {"prctl", NULL},           {"syscall", NULL},
};
static __thread int resolving __attribute__((tls_model("initial-exec")));

void *rp_real(const char *name) {
  for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
    if (strcmp(reals[i].name, name) != 0) continue;
    void *fn = __atomic_load_n(&reals[i].fn, __ATOMIC_ACQUIRE);
    if (fn || resolving) return fn; /* a lookup that re-enters us (an allocator calling dlopen) */
    resolving = 1;
    fn = dlsym(RTLD_NEXT, name);
    resolving = 0;
    __atomic_store_n(&reals[i].fn, fn, __ATOMIC_RELEASE);
    return fn;
  }
  return NULL;
}

/* ---- dlopen ------------------------------------------------------------------------------ */

struct prepared {
  void *real;
  void *ret_byte;
};

struct find_ret {
  uintptr_t addr;
  void *found;
};

static int find_ret_byte(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct find_ret *f = data;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    const unsigned char *start = (const unsigned char *)(info->dlpi_addr + p->p_vaddr);
    if (f->addr < (uintptr_t)start || f->addr >= (uintptr_t)start + p->p_memsz) continue;
    const unsigned char *c = memchr(start, 0xc3, p->p_filesz);
    f->found = (void *)c;
    return 1;
  }
  return 0;
}

/* A `ret` instruction of ours: the fallback (dlopen then sees the agent as its caller). */
__attribute__((naked)) static void own_ret(void) { __asm__ volatile("ret"); }

static int find_self_text(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  if (info->dlpi_addr != rp.self_base) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    rp.self_text_lo = info->dlpi_addr + p->p_vaddr;
    rp.self_text_hi = rp.self_text_lo + p->p_memsz;
  }
  return 1;
}

RP_HIDDEN void rp_self_text_init(void) {
  if (rp.self_base) dl_iterate_phdr(find_self_text, NULL);
}

/* The C library's dlsym: the agent's own `dlsym` calls reach its interposer (it is exported),
 * so the real one is found by version, with dlvsym, which is not interposed. */
static void *real_dlsym(void) {
  static void *fn;
  void *f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
  if (f) return f;
  f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (!f) f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  __atomic_store_n(&fn, f, __ATOMIC_RELEASE);
  return f;
}

/* which: 0 dlopen, 1 dlmopen, 2 dlsym */
RP_HIDDEN struct prepared rp_dlopen_prepare(void *caller, int which) {
  static struct {
    uintptr_t lo, hi;
    void *ret_byte;
  } cache[16];
  static int next;
  struct prepared r = {which == 2 ? real_dlsym() : rp_real(which ? "dlmopen" : "dlopen"), (void *)own_ret};
  uintptr_t a = (uintptr_t)caller;
  for (int i = 0; i < 16; ++i) {
    void *found = __atomic_load_n(&cache[i].ret_byte, __ATOMIC_ACQUIRE);
    if (found && a >= cache[i].lo && a < cache[i].hi) {
      r.ret_byte = found;
      return r;
    }
  }
  struct find_ret f = {a, NULL};
  dl_iterate_phdr(find_ret_byte, &f);
  if (f.found) {
    r.ret_byte = f.found;
    Dl_info info;
    /* Remember a window around the caller; reuse is only an optimisation. */
    if (dladdr(caller, &info) && info.dli_fbase) {
      int i = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) & 15;
      cache[i].ret_byte = NULL;
      cache[i].lo = (uintptr_t)f.found < a ? (uintptr_t)f.found : a;
      cache[i].hi = a + 1;
      __atomic_store_n(&cache[i].ret_byte, f.found, __ATOMIC_RELEASE);
    }
  }
  return r;
}

RP_HIDDEN void rp_dlopen_done(void *handle) {
  if (handle && rp.enabled) rp_hooks_scan();
}

/* What the program's dlsym returns: the trampoline of a function the agent measures (the
 * agent's own lookups get the real address). */
RP_HIDDEN void *rp_dlsym_done(void *found, const char *name, void *caller) {
  if (!found || !name || !rp.enabled) return found;
  if ((uintptr_t)caller >= rp.self_text_lo && (uintptr_t)caller < rp.self_text_hi) return found;
  return rp_hooks_stub_for(name, found);
}

RP_EXPORT int dlclose(void *handle) {
  int (*real)(void *) = (int (*)(void *))rp_real("dlclose");
  if (!real) return -1;
  pthread_mutex_lock(&rp.lock); /* a scan never reads a module being unmapped */
  int r = real(handle);
  pthread_mutex_unlock(&rp.lock);
  return r;
}

/* ---- longjmp ----------------------------------------------------------------------------- */

/* The stack pointer a jmp_buf restores. glibc x86-64 (sysdeps/x86_64/jmpbuf-offsets.h):
 * __jmpbuf = {rbx, rbp, r12, r13, r14, r15, rsp, pc}; rbp, rsp and pc are mangled with
 * PTR_MANGLE (sysdeps/unix/sysv/linux/x86_64/sysdep.h): xor with the pointer guard at
 * %fs:0x30 (tcbhead_t.pointer_guard), then rotate left by 0x11. Demangling: ror 0x11, xor. */
static uint64_t jmpbuf_sp(const void *env) {
  uint64_t v = ((const uint64_t *)env)[6];
  uint64_t guard;
  __asm__("movq %%fs:0x30, %0" : "=r"(guard));
  v = (v >> 0x11) | (v << (64 - 0x11));
  return v ^ guard;
}

typedef void (*jump_fn)(void *, int) __attribute__((noreturn));

static void __attribute__((noreturn)) jump(const char *name, void *env, int val) {
  rp_thread_unwind_to(jmpbuf_sp(env), RP_REASON_LONGJMP, 0);
  jump_fn real = (jump_fn)rp_real(name);
  if (!real) rp_log("no %s to forward to", name), __builtin_trap();
  real(env, val);
}

RP_EXPORT void longjmp(void *env, int val) { jump("longjmp", env, val); }
RP_EXPORT void _longjmp(void *env, int val) { jump("_longjmp", env, val); }
RP_EXPORT void siglongjmp(void *env, int val) { jump("siglongjmp", env, val); }
RP_EXPORT void __longjmp_chk(void *env, int val) { jump("__longjmp_chk", env, val); }

/* ---- exceptions -------------------------------------------------------------------------- */

/* The unwinder reads return addresses to find each frame's unwind info: it must see the real
 * ones, not rp_exit_stub. They are put back for the whole shadow stack of the thread. */
RP_EXPORT int _Unwind_RaiseException(void *exc) {
  rp_thread_restore_all((uint64_t)(uintptr_t)__builtin_frame_address(0));
  int (*real)(void *) = (int (*)(void *))rp_real("_Unwind_RaiseException");
  return real ? real(exc) : 5 /* _URC_END_OF_STACK */;
}

RP_EXPORT int _Unwind_Resume_or_Rethrow(void *exc) {
  rp_thread_restore_all((uint64_t)(uintptr_t)__builtin_frame_address(0));
  int (*real)(void *) = (int (*)(void *))rp_real("_Unwind_Resume_or_Rethrow");
  return real ? real(exc) : 5;
}

/* Called from the landing pad of the frame that catches: hooked calls entered below that
 * frame are over (closed by exception); the others are live again and get their exit stub
 * back. Built with frame pointers: the catching frame's stack pointer is our frame + 16. */
RP_EXPORT void *__cxa_begin_catch(void *exc) {
  uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16;
  rp_thread_unwind_to(sp, RP_REASON_EXCEPTION, 1);
  void *(*real)(void *) = (void *(*)(void *))rp_real("__cxa_begin_catch");
  return real ? real(exc) : NULL;
}

/* ---- threads ------------------------------------------------------------------------------ */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* To start the agent before the first thread exists (agent.c, rp_start), and for native counting
 * to see each thread start (native.c). */
RP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
  rp_start();
  rp_thread_leave_solo();
  create_fn real = (create_fn)rp_real("pthread_create");
  if (!real) return 11 /* EAGAIN */;
  void *(*run)(void *) = start;
  void *with = arg;
  const int wrapped = rp_native_wrap(&run, &with); /* native counting registers the thread */
  int r = real(thread, attr, run, with);
  if (r != 0 && wrapped) free(with);
  return r;
}


typedef void (*exit_fn)(void *) __attribute__((noreturn));

RP_EXPORT void pthread_exit(void *value) {
  rp_thread_exiting(); /* glibc unwinds the thread's stack: real return addresses needed */
  exit_fn real = (exit_fn)rp_real("pthread_exit");
  if (!real) __builtin_trap();
  real(value);
}

/* ---- seccomp strict mode ------------------------------------------------------------------ */

/* prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) and seccomp(SECCOMP_SET_MODE_STRICT, ...): the
 * thread is marked before the request (afterwards nothing the agent does is allowed to it) and
 * unmarked if the request fails. */
static int asks_for_strict_mode(long nr, long a1, long a2) {
  return (nr == SYS_prctl && a1 == PR_SET_SECCOMP && a2 == SECCOMP_MODE_STRICT) ||
         (nr == SYS_seccomp && a1 == SECCOMP_SET_MODE_STRICT);
}

typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
RP_EXPORT int prctl(int option, ...) {
  va_list ap;
  va_start(ap, option);
  unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
  unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
  va_end(ap);
  prctl_fn real = (prctl_fn)rp_real("prctl");
  if (!real) __builtin_trap();
  int strict = asks_for_strict_mode(SYS_prctl, option, (long)a2);
  if (strict) rp_thread_sandbox(1);
  int r = real(option, a2, a3, a4, a5);
  if (strict && r != 0) rp_thread_sandbox(0);
  return r;
}

typedef long (*syscall_fn)(long, long, long, long, long, long, long);
RP_EXPORT long syscall(long nr, ...) {
  va_list ap;
  va_start(ap, nr);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  syscall_fn real = (syscall_fn)rp_real("syscall");
  if (!real) __builtin_trap();
  int strict = asks_for_strict_mode(nr, a[0], a[1]);
  if (strict) rp_thread_sandbox(1);
  long r = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
  if (strict && r != 0) rp_thread_sandbox(0);
  return r;
}
