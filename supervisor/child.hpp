#pragma once
// Starting the program and waiting for it, for every mode: the tracer (which seizes the child
// stopped before its exec), the in-process agent alone and the emulated run (valgrind). The
// waits act on the signal policy (supervisor/signals.hpp).
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "supervisor/signals.hpp"

namespace roofprof::supervisor {

struct Launch {
  std::string path;               // the file to execute (already resolved)
  std::vector<std::string> argv;  // argv[0] as the user typed it
  // The environment, built in the child after fork (async-signal-safe; null: ours).
  std::function<char* const*()> env;
  // Runs in the child before exec (null: nothing), e.g. setenv for a child of its own.
  std::function<void()> in_child;
  bool stop_before_exec = false;  // the child stops itself (SIGSTOP) until a tracer seizes it
};

// The exit status of a child whose exec failed with `err`, as a shell gives it: 127 when the
// file (or its interpreter) was not found, 126 when it was found but cannot run (exec format
// error, e.g. a 32-bit or foreign program; permission denied).
int exec_failure_status(int err);
inline bool is_exec_failure_status(int status) { return status == 126 || status == 127; }

// Forks and executes. A failed exec prints "roofprof: cannot run 'ARGV0': why" and exits with
// exec_failure_status.
// With stop_before_exec, returns once the child has stopped. Throws UserError when fork fails,
// Interrupted when a signal asked roofprof to stop before (end_if_requested).
pid_t start(const Launch& l);

// A started program (not traced) under the signal policy.
class Child {
 public:
  Child(pid_t pid, InterruptPolicy& policy);
  // Acts on interrupt requests (forwards, or kills), then waits up to `timeout_ns` for the
  // program to end (a request cuts the wait short). True once it has ended.
  bool wait(std::chrono::nanoseconds timeout);
  pid_t pid() const { return pid_; }
  bool ended() const { return status_.has_value(); }
  int status() const { return status_.value_or(0); }  // waitpid status once ended
  // A request ended (killed) the program; later waits return at once.
  bool killed() const { return killed_; }

 private:
  bool reap();
  pid_t pid_;
  InterruptPolicy& policy_;
  std::optional<int> status_;
  bool killed_ = false;
};

}  // namespace roofprof::supervisor
