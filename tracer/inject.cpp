#include "tracer/inject.hpp"

#include <sys/ptrace.h>
#include <sys/user.h>

#include <csignal>
#include <vector>

namespace roofprof::tracer {

std::optional<long> inject_syscall(Task& t, const TraceeMemory& mem, long nr, const std::array<long, 6>& args,
                                   std::vector<int>* deferred) {
  user_regs_struct saved{};
  if (!t.read_regs(saved)) return std::nullopt;
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
  t.set_regs(r);
  for (int tries = 0; tries < 64; ++tries) {
    t.resume(How::Step);
    WaitStatus ws = t.wait_own();
    if (ws.is_gone()) return std::nullopt;
    if (ws.type() == WaitStatus::Type::SignalStop && ws.stop_sig() == SIGTRAP) {
      user_regs_struct after{};
      if (!t.read_regs(after)) break;
      // Stepping out of a syscall-exit stop (e.g. the exec event) traps before any
      // instruction has run: step again. The exit path may have overwritten rax: set our
      // registers again.
      if (after.rip == at.value()) {
        t.set_regs(r);
        continue;
      }
      if (after.rip == at.value() + 2) result = long(after.rax);
      break;
    }
    // A signal arrived before the syscall ran: keep it for later, try again.
    if (ws.type() == WaitStatus::Type::SignalStop && deferred) deferred->push_back(ws.stop_sig());
    t.set_regs(r);
  }
  mem.write(at, orig, 2);
  t.set_regs(saved);
  return result;
}

}  // namespace roofprof::tracer
