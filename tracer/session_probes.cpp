// Breakpoint hits -> region boundaries, and executing the instruction under a breakpoint.
#include <sys/ptrace.h>

#include <csignal>

#include <algorithm>
#include <fmt/format.h>

#include "common/clock.hpp"
#include "tracer/arg_reader.hpp"
#include "tracer/detach.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {

using regions::CloseReason;

namespace {
constexpr int kMaxLongjmpSteps = 20000;

// Whether `ret` is a return address: a call instruction ends there (e8 rel32, or ff /2 with a
// ModRM of 2 to 7 bytes). At the entry of code that was jumped to (a trampoline) the word at
// [rsp] is something else, and a return probe there would write into the program's data.
bool follows_a_call(const TraceeMemory& mem, uint64_t ret) {
  if (ret < 8) return false;
  uint8_t b[8] = {};
  if (!mem.read(TraceeAddr(ret - 8), b, sizeof b)) return false;
  if (b[8 - 5] == 0xe8) return true;
  for (int len = 2; len <= 7; ++len)
    if (b[8 - len] == 0xff && ((b[8 - len + 1] >> 3) & 7) == 2) return true;
  return false;
}
}  // namespace

regions::Boundary Session::boundary(const Task& t, uint64_t sp) {
  if (opts_.agent) opts_.agent->drain();  // the agent's earlier boundaries reach the run's tracker first
  return regions::Boundary{t.group->tgid, t.tid, sp, monotonic_ns(), this};
}

void Session::on_breakpoint(Task& t) {
  ProbeBudget::Handling timed(budget_);
  user_regs_struct regs{};
  if (!t.read_regs(regs)) return;
  TraceeAddr at(regs.rip - 1);
  AddressSpace& as = *t.group->as;
  const Breakpoint* bp = as.find(at);
  if (!bp) {
    if (is_our_trap(t, at)) {
      // Ours, removed while this thread was already trapping on it: run the original.
      regs.rip = at.value();
      t.set_regs(regs);
      t.resume(How::Continue);
    } else {
      t.resume(How::Continue, SIGTRAP);  // the program's own int3
    }
    return;
  }
  regs.rip = at.value();
  std::vector<Probe> probes = bp->probes;  // handlers add and remove probes
  const uint64_t stops = bp->displaced.mode == Displaced::Mode::Emulate ? 1 : 2;  // the trap, the step
  handle_probes(t, probes, regs);
  if (finish_requested_) return;  // the loop kills the program next
  for (const Probe& p : probes) {
    if (p.kind == ProbeKind::RegionEntry) budget_.count_stops(t.group->tgid, t.tid, p.region, 2 * stops, monotonic_ns());  // and its return
    if (is_site(p.kind) && p.kind != ProbeKind::RegionEntry) budget_.count_stops(t.group->tgid, t.tid, p.region, stops, monotonic_ns());
  }
  execute_displaced(t, at, regs);
}

void Session::execute_displaced(Task& t, TraceeAddr at, user_regs_struct regs) {
  const Breakpoint* bp = t.group->as->find(at);
  if (!bp) {  // every probe here went away: the original byte is back
    regs.rip = at.value();
    t.set_regs(regs);
    t.resume(How::Continue);
    return;
  }
  if (bp->displaced.mode == Displaced::Mode::Emulate) {
    emulate(bp->displaced, regs, t.group->as->mem(), at);
    t.set_regs(regs);
    if (t.longjmp) continue_longjmp_step(t, regs);
    else t.resume(How::Continue);
    return;
  }
  t.state = DisplacedStep{at, bp->slot, bp->displaced};
  regs.rip = bp->slot.value();
  t.set_regs(regs);
  t.step_resumed_ns = monotonic_ns();
  t.step_resumed_stop = stops_seen_;
  t.resume(How::Step);
}

void Session::on_step_done(Task& t) {
  ProbeBudget::Handling timed(budget_);
  if (t.step_resumed_ns && stops_seen_ == t.step_resumed_stop + 1) budget_.note_step(monotonic_ns() - t.step_resumed_ns);
  t.step_resumed_ns = 0;
  user_regs_struct regs{};
  if (!t.read_regs(regs)) return;
  if (auto* step = std::get_if<DisplacedStep>(&t.state)) {
    fixup_after_step(step->insn, regs, t.group->as->mem(), step->at, step->slot);
    t.set_regs(regs);
  }
  t.state = Running{};
  if (t.longjmp) continue_longjmp_step(t, regs);
  else t.resume(How::Continue);
}

// Single-steps through longjmp until the stack pointer jumps above longjmp's caller: that
// is the target frame, and every function instance entered below it has been left.
void Session::continue_longjmp_step(Task& t, const user_regs_struct& regs) {
  LongjmpFollow& lj = *t.longjmp;
  if (regs.rsp > lj.sp0 + 8) {
    t.longjmp.reset();
    if (t.group->measured) close_unwound(t, regs.rsp, CloseReason::Longjmp);
    t.resume(How::Continue);
    return;
  }
  if (++lj.steps > kMaxLongjmpSteps) {
    t.longjmp.reset();
    outcome_.warnings.push_back("a longjmp could not be followed; regions it left are closed when next noticed");
    t.resume(How::Continue);
    return;
  }
  if (t.group->as->find(TraceeAddr(regs.rip))) {  // let our breakpoint trap normally
    t.resume(How::Continue);
    return;
  }
  t.state = LongjmpStep{};
  t.resume(How::Step);
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

void Session::handle_probes(Task& t, const std::vector<Probe>& probes, const user_regs_struct& regs) {
  ThreadGroup& g = *t.group;
  const uint64_t sp = regs.rsp;
  const bool measured = g.measured;

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
        if (measured && !t.returns.empty()) t.longjmp = LongjmpFollow{regs.rsp, 0};
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
      case ProbeKind::NativeUncounted:
        uncounted_ran(t, TraceeAddr(regs.rip), p);
        break;
      default:
        break;
    }
  }
  if (!measured) return;
  if (opts_.observer->acts_before_outermost_entry() && !tracker_.in_function(g.tgid, t.tid) &&
      std::any_of(probes.begin(), probes.end(), [](const Probe& p) { return p.kind == ProbeKind::RegionEntry; })) {
    const int64_t t0 = monotonic_ns();
    opts_.observer->before_outermost_entry(t.tid);
    budget_.not_probe_cost(monotonic_ns() - t0);  // cache eviction is not a cost of the probes
  }
  for (const Probe& p : probes) {
    if (p.kind == ProbeKind::RegionEntry) {
      std::string group;
      if (!tracker_.is_open(p.region, g.tgid, t.tid)) {
        StoppedThreadArgs args(regs, g.as->mem(), unwinder_, t.tid, g.tgid);
        group = opts_.observer->key_at_entry(p.region, args);
      }
      auto ret = g.as->mem().read_u64(TraceeAddr(sp));
      if (!ret || !follows_a_call(g.as->mem(), *ret)) {
        if (not_called_warned_.insert(p.region).second)
          outcome_.warnings.push_back(fmt::format(
              "region '{}' was entered without a call (no return address on the stack); those entries are not "
              "measured",
              p.region < planner_.regions().size() ? planner_.regions()[p.region].name : "?"));
        continue;
      }
      Probe r;
      r.kind = ProbeKind::Return;
      r.tid = t.tid;
      r.entry_sp = sp;
      if (!add_probe(t, TraceeAddr(*ret), r)) continue;  // no scratch slot: this call is not measured
      if (!tracker_.enter(p.region, boundary(t, sp), std::move(group))) {  // recursion: counted once
        g.as->remove_probe(TraceeAddr(*ret), r);
        continue;
      }
      t.returns.push_back(ReturnWatch{TraceeAddr(*ret), sp});
    } else if (p.kind == ProbeKind::SpanStart) {
      if (tracker_.span_start(p.region, boundary(t, sp))) suspend_span_starts(g, p.region);
    } else if (p.kind == ProbeKind::SpanResume) {
      if (tracker_.span_resume(p.region, boundary(t, sp))) suspend_span_starts(g, p.region);
    }
  }
}

}  // namespace roofprof::tracer
