#include "tracer/inject.hpp"

#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <vector>

namespace roofprof::tracer {

std::optional<long> inject_syscall(pid_t tid, const TraceeMemory& mem, long nr, const std::array<long, 6>& args,
                                   std::vector<int>* deferred) {
  user_regs_struct saved{};
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &saved) != 0) return std::nullopt;
  TraceeAddr at(saved.rip);
  uint8_t orig[2];
  if (!mem.read(at, orig, 2)) return std::nullopt;
  static const uint8_t kSyscall[2] = {0x0f, 0x05};
  if (!mem.write(at, kSyscall, 2)) return std::nullopt;

  user_regs_struct r = saved;
  r.rax = uint64_t(nr);
  r.orig_rax = uint64_t(-1);  // not inside a syscall: no restart logic on resume
  r.rdi = uint64_t(args[0]);
  r.rsi = uint64_t(args[1]);
  r.rdx = uint64_t(args[2]);
  r.r10 = uint64_t(args[3]);
  r.r8 = uint64_t(args[4]);
  r.r9 = uint64_t(args[5]);
  std::optional<long> result;
  if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) == 0) {
    for (int tries = 0; tries < 64; ++tries) {
      if (ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr) != 0) break;
      int status = 0;
      if (waitpid(tid, &status, __WALL) != tid) break;
      if (WIFEXITED(status) || WIFSIGNALED(status)) return std::nullopt;
      if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0) {
        user_regs_struct after{};
        if (ptrace(PTRACE_GETREGS, tid, nullptr, &after) != 0) break;
        // Stepping out of a syscall-exit stop (e.g. the exec event) traps before any
        // instruction has run: step again.
        // The exit path may have overwritten rax: set our registers again.
        if (after.rip == at.value()) {
          if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0) break;
          continue;
        }
        if (after.rip == at.value() + 2) result = long(after.rax);
        break;
      }
      // A signal arrived before the syscall ran: keep it for later, try again.
      if (WIFSTOPPED(status) && (status >> 16) == 0 && deferred) deferred->push_back(WSTOPSIG(status));
    }
  }
  mem.write(at, orig, 2);
  ptrace(PTRACE_SETREGS, tid, nullptr, &saved);
  return result;
}

}  // namespace roofprof::tracer
