// Timing single steps (stop_calibration.hpp).
#include "tracer/stop_calibration.hpp"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.hpp"
#include "tracer/task.hpp"

namespace roofprof::tracer {

std::vector<int64_t> time_steps(Task& t, int n) {
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    const int64_t t0 = monotonic_ns();
    if (!t.resume(How::Step)) break;
    const WaitStatus ws = t.wait_own();
    if (ws.type() != WaitStatus::Type::SignalStop || ws.stop_sig() != SIGTRAP) {
      if (ws.type() == WaitStatus::Type::SignalStop) t.pending_signal = ws.stop_sig();  // delivered later
      break;
    }
    out.push_back(monotonic_ns() - t0);
  }
  return out;
}

std::vector<int64_t> time_steps_apart(int n) {
  std::vector<int64_t> out;
  const pid_t child = fork();
  if (child < 0) return out;
  if (child == 0) {
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == 0) raise(SIGSTOP);
    for (;;) __asm__ volatile("pause");
  }
  int status = 0;
  if (waitpid(child, &status, __WALL) == child && WIFSTOPPED(status)) {
    for (int i = 0; i < n; ++i) {
      const int64_t t0 = monotonic_ns();
      if (ptrace(PTRACE_SINGLESTEP, child, nullptr, nullptr) != 0) break;
      if (waitpid(child, &status, __WALL) != child || !WIFSTOPPED(status)) break;
      out.push_back(monotonic_ns() - t0);
    }
  }
  kill(child, SIGKILL);
  waitpid(child, &status, __WALL);
  return out;
}

}  // namespace roofprof::tracer
