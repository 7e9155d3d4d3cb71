#include "tracer/wait_status.hpp"

#include <fmt/format.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <csignal>
#include <cstring>

#include "supervisor/ending.hpp"

namespace roofprof::tracer {

WaitStatus::Type WaitStatus::type() const {
  if (WIFEXITED(raw_)) return Type::Exited;
  if (WIFSIGNALED(raw_)) return Type::FatalSignal;
  int event = (raw_ >> 16) & 0xff;
  if (event == PTRACE_EVENT_STOP) {
    int sig = WSTOPSIG(raw_);
    // Under PTRACE_SEIZE, group-stops report a stop signal; PTRACE_INTERRUPT and the initial
    // stop of a new thread report SIGTRAP. Both are "stopped, nothing to deliver".
    (void)sig;
    return Type::GroupStop;
  }
  if (event != 0) return Type::PtraceEvent;
  return Type::SignalStop;
}

int WaitStatus::exit_code() const { return WEXITSTATUS(raw_); }
int WaitStatus::fatal_sig() const { return WTERMSIG(raw_); }
int WaitStatus::stop_sig() const { return WSTOPSIG(raw_); }
int WaitStatus::ptrace_event() const { return (raw_ >> 16) & 0xff; }

bool WaitStatus::is_job_stop() const {
  if (type() != Type::GroupStop) return false;
  const int sig = stop_sig();
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

std::string WaitStatus::describe() const {
  switch (type()) {
    case Type::Exited: return fmt::format("exited with status {}", exit_code());
    case Type::FatalSignal: return fmt::format("killed by {}", supervisor::signal_name(fatal_sig()));
    case Type::SignalStop: return fmt::format("stopped by {}", supervisor::signal_name(stop_sig()));
    case Type::GroupStop: return fmt::format("group-stop ({})", supervisor::signal_name(stop_sig()));
    case Type::PtraceEvent: return fmt::format("ptrace event {}", ptrace_event());
  }
  return "unknown";
}

}  // namespace roofprof::tracer
