/* Fatal signals: when the program leaves SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT and SIGSYS
 * at their default action, the agent catches them to write a crash record (counters and time
 * at the fault, instances still open close as `crash`), then lets the default action happen:
 * the handler is installed with SA_RESETHAND, a fault re-executes the faulting instruction
 * and a signal sent by a process is raised again. The program never sees this: sigaction()
 * and signal() report SIG_DFL for these signals, and installing its own handler simply
 * replaces the agent's. */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/agent/agent.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS};
static volatile int ours[_NSIG]; /* the agent's handler is in place for this signal */

static void on_fatal_signal(int sig, siginfo_t *info, void *ctx) {
  (void)ctx;
  ours[sig] = 0; /* SA_RESETHAND: the default action is back */
  if (rp.active) rp_process_crashing();
  if (info->si_code <= 0) /* sent by a process (kill, raise, abort): send it again */
    rp_syscall6(SYS_tgkill, rp.pid, rp_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), sig, 0, 0, 0);
  /* A fault returns to the faulting instruction and faults again, now fatally. */
}

void rp_crash_handlers_install(void) {
  typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
  sigaction_fn real = (sigaction_fn)rp_real("sigaction");
  if (!real) return;
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; ++i) {
    int sig = fatal_signals[i];
    struct sigaction old;
    if (real(sig, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (real(sig, &sa, NULL) == 0) ours[sig] = 1;
  }
}

static int is_ours(int sig) { return sig > 0 && sig < _NSIG && ours[sig]; }

RP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
  sigaction_fn real = (sigaction_fn)rp_real("sigaction");
  if (!real) return -1;
  int mine = is_ours(sig);
  int r = real(sig, act, old);
  if (r == 0 && mine) {
    if (old) { /* what the program would see without the agent */
      memset(old, 0, sizeof *old);
      old->sa_handler = SIG_DFL;
    }
    if (act) ours[sig] = 0;
  }
  return r;
}

RP_EXPORT __sighandler_t signal(int sig, __sighandler_t handler) {
  typedef __sighandler_t (*signal_fn)(int, __sighandler_t);
  signal_fn real = (signal_fn)rp_real("signal");
  if (!real) return SIG_ERR;
  int mine = is_ours(sig);
  __sighandler_t r = real(sig, handler);
  if (r != SIG_ERR && mine) {
    ours[sig] = 0;
    return SIG_DFL;
  }
  return r;
}
