/* libroofprof-preload.so: start, fork and exit of the in-process agent. docs/preload.md. */
#include <dlfcn.h>
#include <unistd.h>

#include "preload/agent/agent.h"

/* The one process-global state of the agent (agent.h). */
struct rp_agent rp = {
    .lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
};

static void reset_lock(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&rp.lock, &a);
  pthread_mutexattr_destroy(&a);
}

static void before_fork(void) { pthread_mutex_lock(&rp.lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&rp.lock); }

/* Only the forking thread goes on in the child. With follow-fork the child gets its own
 * record file and counters; otherwise the agent stays silent in it (hooked calls pass
 * through, calls in progress return normally). */
static void after_fork_child(void) {
  reset_lock();
  pid_t parent = rp.pid;
  rp.pid = getpid();
  if (!rp.follow_fork) rp_environ_strip(); /* its descendants run without the agent */
  if (!rp.enabled) return;
  rp_counters_close_process(); /* the parent's threads */
  rp_share_reset();            /* nothing of the parent's is open in the child */
  if (rp.emul) {
    if (!rp.follow_fork) rp.active = 0; /* the tool writes the child's own event file */
  } else if (rp.follow_fork && rp.active && rp_file_create(parent) == 0) {
    if (rp.scope == RP_SCOPE_PROCESS) rp_counters_open_process();
  } else {
    rp.active = 0;
    rp_file_drop_parent();
  }
  rp_thread_after_fork_child();
  rp_native_after_fork_child();
}

/* Starts the agent, once. Normally from the constructor; but the constructors of the
 * program's libraries run before the agent's (libopenblas starts its worker threads in its
 * own), so the interposed pthread_create starts the agent first if it comes earlier: the
 * process-scope counter group must be open before the first thread exists to inherit it. */
void rp_start(void) {
  static int state; /* 0: not started, 1: starting or started */
  if (__atomic_exchange_n(&state, 1, __ATOMIC_ACQ_REL)) return;
  rp.pid = getpid();
  Dl_info self;
  if (dladdr((void *)rp_start, &self)) rp.self_base = (uintptr_t)self.dli_fbase;
  rp_self_text_init();
  /* Look the forwarded functions up now, before the program can re-enter us. */
  static const char *const forwarded[] = {"dlopen",        "dlmopen",      "dlclose",   "longjmp",
                                          "_longjmp",      "siglongjmp",   "__longjmp_chk", "pthread_exit",
                                          "pthread_create", "sigaction",   "signal"};
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; ++i) rp_real(forwarded[i]);
  rp_trace_init();
  if (rp_config_read() != 0) {
    RP_TRACE("not measuring this process (unconfigured, or not the one roofprof started: pid %d)", (int)rp.measured_pid);
    /* Not configured, or a process roofprof does not measure (started by one it measures,
     * without --follow-fork): nothing of the agent reaches its descendants. */
    if (!rp.emul && !rp.follow_fork && rp.measured_pid != 0 && rp.measured_pid != rp.pid) rp_environ_strip();
    return;
  }
  rp_evict_init();
  if (rp_stubs_end - rp_stubs != (long)RP_MAX_HOOKS * RP_STUB_BYTES) {
    rp_log("trampoline table has the wrong size; agent off");
    return;
  }
  if (rp_threads_init() != 0) return;
  if (rp.emul) {
    if (rp_emul_start() != 0) return;
  } else {
    if (rp_file_create(getppid()) != 0) return;
    if (rp.scope == RP_SCOPE_PROCESS) rp_counters_open_process();
  }
  rp_native_start();
  rp.enabled = 1;
  rp.active = 1;
  RP_TRACE("on: %d patterns, %d events in %d groups, scope %s%s%s", rp.n_patterns, rp.n_events, rp.n_groups,
           rp.scope == RP_SCOPE_THREAD ? "thread" : "process", rp.emul ? ", emulated" : "",
           rp.sites_only ? ", only the sites roofprof lists" : "");
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  rp_crash_handlers_install();
  rp_hooks_scan();
  rp_calibrate();
}

__attribute__((constructor)) static void rp_constructor(void) { rp_start(); }

/* exit() or return from main: the process-exit record closes what is still open. */
__attribute__((destructor)) static void rp_stop(void) {
  if (rp.active) rp_process_exiting();
}
