#pragma once
// The raw status from waitpid(), wrapped in a value type that names every kind of stop.
#include <string>

namespace roofprof::tracer {

class WaitStatus {
 public:
  enum class Type {
    Exited,        // the task exited normally (exit_code())
    FatalSignal,   // the task was killed by a signal (fatal_sig())
    SignalStop,    // signal-delivery-stop (stop_sig())
    GroupStop,     // group-stop under PTRACE_SEIZE (PTRACE_EVENT_STOP with a stop signal)
    PtraceEvent,   // PTRACE_EVENT_* stop (ptrace_event())
  };

  explicit WaitStatus(int raw = 0) : raw_(raw) {}
  int raw() const { return raw_; }
  Type type() const;
  int exit_code() const;     // Exited
  int fatal_sig() const;     // FatalSignal
  int stop_sig() const;      // SignalStop, GroupStop, PtraceEvent (SIGTRAP)
  int ptrace_event() const;  // PtraceEvent: PTRACE_EVENT_CLONE, ..., 0 otherwise
  bool is_gone() const { return type() == Type::Exited || type() == Type::FatalSignal; }
  // A group-stop of job control (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU): the task stays stopped.
  bool is_job_stop() const;
  std::string describe() const;

 private:
  int raw_;
};

}  // namespace roofprof::tracer
