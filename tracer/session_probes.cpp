// Breakpoint hits -> region boundaries, and executing the instruction under a breakpoint.
#include <sys/ptrace.h>

#include <csignal>

#include <algorithm>
#include <fmt/format.h>

#include "common/clock.hpp"
#include "tracer/arg_reader.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {

using regions::CloseReason;

namespace {
constexpr int kMaxLongjmpSteps = 20000;
}

regions::Boundary Session::boundary(const Task& t, uint64_t sp) const {
  return regions::Boundary{t.group->tgid, t.tid, sp, monotonic_ns()};
}

void Session::on_breakpoint(Task& t) {
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, t.tid, nullptr, &regs) != 0) return;
  TraceeAddr at(regs.rip - 1);
  AddressSpace& as = *t.group->as;
  const Breakpoint* bp = as.find(at);
  if (!bp) {
    uint8_t byte = 0;
    if (as.mem().read(at, &byte, 1) && byte != 0xcc) {
      // Ours, removed while this thread was already trapping on it: run the original.
      regs.rip = at.value();
      ptrace(PTRACE_SETREGS, t.tid, nullptr, &regs);
      resume(t, How::Continue);
    } else {
      resume(t, How::Continue, SIGTRAP);  // the program's own int3
    }
    return;
  }
  regs.rip = at.value();
  std::vector<Probe> probes = bp->probes;  // handlers add and remove probes
  handle_probes(t, probes, regs);
  if (finish_requested_) return;  // the loop kills the program next
  execute_displaced(t, at, regs);
}

void Session::execute_displaced(Task& t, TraceeAddr at, user_regs_struct& regs) {
  const Breakpoint* bp = t.group->as->find(at);
  if (!bp) {  // every probe here went away: the original byte is back
    regs.rip = at.value();
    ptrace(PTRACE_SETREGS, t.tid, nullptr, &regs);
    resume(t, How::Continue);
    return;
  }
  if (bp->displaced.mode == Displaced::Mode::Emulate) {
    emulate(bp->displaced, regs, t.group->as->mem(), at);
    ptrace(PTRACE_SETREGS, t.tid, nullptr, &regs);
    if (t.longjmp_sp0) continue_longjmp_step(t, regs);
    else resume(t, How::Continue);
    return;
  }
  t.mode = Task::Mode::DisplacedStep;
  t.step_at = at;
  t.step_slot = bp->slot;
  t.step_insn = bp->displaced;
  regs.rip = bp->slot.value();
  ptrace(PTRACE_SETREGS, t.tid, nullptr, &regs);
  resume(t, How::Step);
}

void Session::on_step_done(Task& t) {
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, t.tid, nullptr, &regs) != 0) return;
  if (t.mode == Task::Mode::DisplacedStep) {
    fixup_after_step(t.step_insn, regs, t.group->as->mem(), t.step_at, t.step_slot);
    ptrace(PTRACE_SETREGS, t.tid, nullptr, &regs);
  }
  t.mode = Task::Mode::Running;
  if (t.longjmp_sp0) continue_longjmp_step(t, regs);
  else resume(t, How::Continue);
}

void Session::start_longjmp_step(Task& t, const user_regs_struct& regs) {
  t.longjmp_sp0 = regs.rsp;
  t.longjmp_steps = 0;
}

// Single-steps through longjmp until the stack pointer jumps above longjmp's caller: that
// is the target frame, and every function instance entered below it has been left.
void Session::continue_longjmp_step(Task& t, user_regs_struct& regs) {
  if (regs.rsp > t.longjmp_sp0 + 8) {
    t.longjmp_sp0 = 0;
    if (t.group->measured) close_unwound(t, regs.rsp, CloseReason::Longjmp);
    resume(t, How::Continue);
    return;
  }
  if (++t.longjmp_steps > kMaxLongjmpSteps) {
    t.longjmp_sp0 = 0;
    outcome_.warnings.push_back("a longjmp could not be followed; regions it left are closed when next noticed");
    resume(t, How::Continue);
    return;
  }
  if (t.group->as->find(TraceeAddr(regs.rip))) {  // let our breakpoint trap normally
    resume(t, How::Continue);
    return;
  }
  t.mode = Task::Mode::LongjmpStep;
  resume(t, How::Step);
}

void Session::drop_returns(Task& t, uint64_t below_sp, bool all) {
  auto& as = *t.group->as;
  auto keep = std::remove_if(t.returns.begin(), t.returns.end(), [&](const ReturnWatch& w) {
    if (!all && w.entry_sp >= below_sp) return false;
    Probe p;
    p.kind = ProbeKind::Return;
    p.tid = t.tid;
    p.entry_sp = w.entry_sp;
    as.remove_probe(w.site, p);
    return true;
  });
  t.returns.erase(keep, t.returns.end());
}

void Session::close_unwound(Task& t, uint64_t sp, CloseReason why) {
  tracker_.stack_at(boundary(t, sp), why);
  drop_returns(t, sp, false);
}

void Session::handle_probes(Task& t, const std::vector<Probe>& probes, user_regs_struct& regs) {
  ThreadGroup& g = *t.group;
  const uint64_t sp = regs.rsp;
  const bool measured = g.measured;
  auto alloc = [&](TraceeAddr near, size_t size) { return map_scratch(t, near, size); };

  // Closing boundaries first, then control hooks, then opening boundaries.
  if (measured && !t.returns.empty()) {
    bool own_return = std::any_of(probes.begin(), probes.end(), [&](const Probe& p) {
      return p.kind == ProbeKind::Return && p.tid == t.tid;
    });
    close_unwound(t, sp, own_return ? CloseReason::Return : CloseReason::Unwound);
  }
  for (const Probe& p : probes) {
    switch (p.kind) {
      case ProbeKind::SpanStop:
        if (measured && tracker_.span_stop(p.region, boundary(t, sp))) restore_span_starts(t, p.region);
        break;
      case ProbeKind::CatchBegin:
        // Called from the catching frame: that frame's stack pointer is sp + 8.
        if (measured && !t.returns.empty()) close_unwound(t, sp + 8, CloseReason::Exception);
        break;
      case ProbeKind::Longjmp:
        if (measured && !t.returns.empty()) start_longjmp_step(t, regs);
        break;
      case ProbeKind::ProcessExiting:
        g.exiting = true;
        break;
      case ProbeKind::DynamicLinker:
        scan_modules(t);
        break;
      case ProbeKind::EntryPoint:
        initial_check(t);
        break;
      default:
        break;
    }
  }
  if (!measured) return;
  if (opts_.before_outermost_entry && t.returns.empty() &&
      std::any_of(probes.begin(), probes.end(), [](const Probe& p) { return p.kind == ProbeKind::RegionEntry; }))
    opts_.before_outermost_entry(t.tid);
  for (const Probe& p : probes) {
    if (p.kind == ProbeKind::RegionEntry) {
      std::string group;
      if (opts_.group_key && !tracker_.is_open(p.region, g.tgid, t.tid)) {
        StoppedThreadArgs args(regs, g.as->mem());
        group = opts_.group_key(p.region, args);
      }
      if (!tracker_.enter(p.region, boundary(t, sp), std::move(group))) continue;  // recursion: counted once
      auto ret = g.as->mem().read_u64(TraceeAddr(sp));
      if (!ret) continue;
      Probe r;
      r.kind = ProbeKind::Return;
      r.tid = t.tid;
      r.entry_sp = sp;
      g.as->add_probe(TraceeAddr(*ret), r, alloc);
      t.returns.push_back(ReturnWatch{TraceeAddr(*ret), sp});
    } else if (p.kind == ProbeKind::SpanStart) {
      if (tracker_.span_start(p.region, boundary(t, sp))) suspend_span_starts(g, p.region);
    }
  }
}

}  // namespace roofprof::tracer
