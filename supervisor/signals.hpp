#pragma once
// The signal policy of roofprof, one for every mode (breakpoints, agent, combined, the
// emulated run) and every signal that would end roofprof (docs/methodology.md, "Signals"):
//
//   SIGINT SIGTERM SIGHUP SIGQUIT SIGUSR1 SIGUSR2 SIGALRM SIGPIPE
//
// A handler only records the request. The supervisor of the running program then keeps what
// was measured and marks the result incomplete: the first request sent to roofprof alone is
// passed on to the program (one from the terminal reached the program's process group
// already), which ends as it would without roofprof; a second request, or the program still
// running a grace period (1 s) later, ends it at once (killed, or detached when attached).
// roofprof then writes the result, removes its temporary files and exits. A SIGPIPE raised by
// roofprof's own write (a closed stderr pipe) is not a request: the write fails, the run goes
// on, the exit status stays the program's.
#include <sys/types.h>

#include <csignal>
#include <cstdint>
#include <stdexcept>

namespace roofprof {

// A signal asked roofprof to stop before the program started (end_if_requested below): nothing
// was measured. The CLI says so in one line and exits with 128 + the signal, as a shell would.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig);
  int signal() const { return signal_; }
  int exit_status() const;  // 128 + the signal (supervisor/ending.hpp)

 private:
  int signal_;
};

}  // namespace roofprof

namespace roofprof::supervisor {

// The signals above, in that order.
inline constexpr int kPolicySignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};

// Installs the handlers (no SA_RESTART: a blocking wait returns EINTR). Idempotent. Handlers
// are reset at exec, so the program starts with the dispositions roofprof was given; a signal
// ignored when roofprof started (nohup) is left ignored.
void install_signal_policy();

// Gives the signals back to their dispositions at start (the default, or ignored) for a
// subcommand that runs no program (report, doctor, ...): main() installs the policy first
// thing, before it knows the subcommand, so that no signal finds roofprof without a handler.
// A request received meanwhile (and not acted on) is raised again: roofprof ends as it would
// have.
void release_signal_policy();

// In a child of roofprof's before it executes the program: the policy's signals back at their
// default action (the ignored ones stay ignored), as exec would make them. A signal passed on to
// the program before its exec must end it, not run roofprof's handler in the child and be lost.
// Async-signal-safe.
void default_signals_in_child();

// A request no policy acted on yet: one that arrived before the program was started (or
// attached to). Throws Interrupted when there is one: roofprof ends
// cleanly, with 128 + the signal, as a shell would. Called by start() before it forks.
void end_if_requested();
// The signal of such a request, or 0.
int pending_request_signal();

// A traced task to PTRACE_INTERRUPT when a request (or the grace timer) arrives, so that a
// tracer blocked in waitpid() wakes up even if the signal came just before the wait (0: none).
void wake_task(pid_t tid);

// Any request received since the start (the result is incomplete), and the latest one's signal.
bool interrupted();
int last_request_signal();

// What the supervisor of a running program does now.
enum class Action { None, Forward, End };

class InterruptPolicy {
 public:
  // Acts on the requests no earlier policy acted on: those that arrive from now on, and one
  // that arrived while roofprof was still setting up (a Ctrl-C before the program or the
  // attach was under way is not lost). `attached`: roofprof attached to a process it did not
  // start (--pid): a request ends the run at once (detached, never signalled).
  explicit InterruptPolicy(bool attached, int64_t grace_ns = 1'000'000'000);
  // Polled between waits. Forward: send signal() to the program. End: end it now.
  Action next(int64_t now_ns);
  int signal() const { return signal_; }
  bool interrupted() const { return requests_ > 0; }

 private:
  bool attached_;
  int64_t grace_ns_;
  int base_;  // requests before this policy
  int requests_ = 0;
  int signal_ = 0;
  int64_t deadline_ns_ = 0;
  bool ended_ = false;
};

}  // namespace roofprof::supervisor
