// Detaching, task by task (detach.hpp).
#include "tracer/detach.hpp"

#include <signal.h>

namespace roofprof::tracer {

bool leave_displaced_step(Task& t) {
  auto* step = std::get_if<DisplacedStep>(&t.state);
  if (!step) return false;
  user_regs_struct regs{};
  if (t.read_regs(regs)) {
    if (TraceeAddr(regs.rip) == step->slot) {
      regs.rip = step->at.value();
    } else {
      fixup_after_step(step->insn, regs, t.group->as->mem(), step->at, step->slot);
      t.step_trap_queued = true;
    }
    t.set_regs(regs);
  }
  t.state = Running{};
  t.step_resumed_ns = 0;
  return true;
}

// A breakpoint removed since the task trapped on it (another thread's return closed the last
// probe there): the byte at `at` is no longer int3, so it cannot be the program's own.
bool is_our_trap(Task& t, TraceeAddr at) {
  if (t.group->as->find(at)) return true;
  uint8_t byte = 0;
  return t.group->as->mem().read(at, &byte, 1) && byte != 0xcc;
}

// A displaced step is undone or completed, a breakpoint trap is rewound onto the instruction.
void settle_for_detach(Task& t, WaitStatus ws) {
  const bool was_stepping = t.is_stepping();
  const bool is_trap = ws.type() == WaitStatus::Type::SignalStop && ws.stop_sig() == SIGTRAP;
  leave_displaced_step(t);
  t.state = Running{};
  // Stopped by something else in the middle of a step: the step's trap may still be queued.
  if (was_stepping && !is_trap) t.step_trap_queued = true;
  if (ws.is_job_stop()) t.job_stopped = true;
  if (ws.type() != WaitStatus::Type::SignalStop) return;
  int sig = ws.stop_sig();
  if (sig != SIGTRAP) {
    t.pending_signal = sig;
    return;
  }
  siginfo_t si = t.siginfo();
  user_regs_struct regs{};
  if (!t.read_regs(regs)) return;
  if (si.si_code == SI_KERNEL && is_our_trap(t, TraceeAddr(regs.rip - 1))) {
    regs.rip -= 1;  // stopped on one of our breakpoints: back to the instruction
    t.set_regs(regs);
  } else if (si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT) {
    if (!was_stepping && !t.step_trap_queued) t.pending_signal = sig;  // the program's own
    t.step_trap_queued = false;
  } else {
    t.pending_signal = sig;  // the program's own int3, or a SIGTRAP sent to it
  }
}

// A task stopped by our PTRACE_INTERRUPT reports that stop before any signal queued for it (the
// kernel takes job-control traps first): a breakpoint's or a step's SIGTRAP may still be queued
// and would kill the program after PTRACE_DETACH. Continued, nothing runs in user space before a
// pending signal is dequeued.
bool park(Task& t) {
  constexpr uint64_t kTrapBit = uint64_t(1) << (SIGTRAP - 1);
  if (!t.job_stopped && (t.pending_signals() & kTrapBit)) {
    t.resume(How::Continue);  // the queued SIGTRAP stops it again at once
    return false;
  }
  t.state = Detaching{};
  return true;
}

void detach_group(ThreadGroup& g) {
  g.as->remove_all();
  for (auto& [tid, t] : g.tasks) {
    if (g.counters && g.counters->has_thread(tid)) g.counters->remove_thread(tid);
    t->detach(t->pending_signal);
  }
}

}  // namespace roofprof::tracer
