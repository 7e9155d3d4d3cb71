// Session lifecycle and the stop dispatcher.
#include "tracer/session.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <utility>
#include <set>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/program.hpp"
#include "supervisor/child.hpp"
#include "tracer/detach.hpp"
#include "tracer/stop_calibration.hpp"

namespace roofprof::tracer {

namespace {

constexpr int kCalibrationSteps = 16;  // timed single steps at the start (stop_calibration.hpp)

constexpr long kTraceOptions = PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                               PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;

std::optional<pid_t> tgid_of(pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Tgid:", 0) == 0) return pid_t(std::stol(line.substr(5)));
  return std::nullopt;
}

// The child a PTRACE_EVENT_CLONE, _FORK or _VFORK announced is a thread of the process `tgid`
// (CLONE_THREAD), not a process of its own.
bool is_new_thread(int event, pid_t child, pid_t tgid) {
  return event == PTRACE_EVENT_CLONE && tgid_of(child).value_or(child) == tgid;
}

bool creates_child(const WaitStatus& ws) {
  if (ws.type() != WaitStatus::Type::PtraceEvent) return false;
  const int e = ws.ptrace_event();
  return e == PTRACE_EVENT_CLONE || e == PTRACE_EVENT_FORK || e == PTRACE_EVENT_VFORK;
}

// Why a task's open regions close as it ends: killed by a signal, the end of its process, or
// the end of one thread.
regions::CloseReason closing(bool killed, bool process_ends) {
  return killed         ? regions::CloseReason::Crash
         : process_ends ? regions::CloseReason::ProcessExit
                        : regions::CloseReason::ThreadExit;
}

}  // namespace

Session::Session(SessionOptions opts, counters::Backend& backend, probes::Planner& planner,
                 regions::Tracker& tracker)
    : opts_(std::move(opts)),
      backend_(backend),
      planner_(planner),
      tracker_(tracker),
      interrupts_(opts_.attach_pid != 0),
      budget_(opts_.max_probe_slowdown) {}

Session::~Session() { supervisor::wake_task(0); }

CounterValues Session::read_thread(int pid, regions::Tid tid) {
  auto it = groups_.find(pid);
  if (it == groups_.end() || !it->second->counters) return {};
  return it->second->counters->read_thread(tid);
}

CounterValues Session::read_process(int pid, regions::Tid tid, const CounterValues& thread_now) {
  auto it = groups_.find(pid);
  if (it == groups_.end() || !it->second->counters) return {};
  return it->second->counters->read_process(tid, &thread_now);
}

Task* Session::find_task(pid_t tid) {
  for (auto& [pid, g] : groups_) {
    auto it = g->tasks.find(tid);
    if (it != g->tasks.end()) return it->second.get();
  }
  return nullptr;
}

ThreadGroup& Session::new_group(pid_t tgid, std::shared_ptr<AddressSpace> as, bool measured) {
  auto g = std::make_unique<ThreadGroup>();
  g->tgid = tgid;
  g->as = std::move(as);
  g->measured = measured;
  if (measured) g->counters = std::make_unique<counters::ProcessCounters>(backend_);
  auto& ref = *g;
  groups_[tgid] = std::move(g);
  return ref;
}

Task& Session::new_task(ThreadGroup& g, pid_t tid) {
  auto t = std::make_unique<Task>(tid, &g);
  auto& ref = *t;
  g.tasks[tid] = std::move(t);
  return ref;
}

void Session::remove_task(Task& t) {
  ThreadGroup& g = *t.group;
  unwinder_.forget(t.tid);
  g.tasks.erase(t.tid);
}

// ---------------------------------------------------------------------------------------
// Starting

void Session::launch() {
  const std::string& prog = opts_.argv.at(0);
  supervisor::Launch l;
  l.path = runnable_program(prog);
  l.argv = opts_.argv;
  if (opts_.agent) l.env = [agent = opts_.agent] { return agent->child_env(); };
  l.stop_before_exec = true;
  pid_t pid = supervisor::start(l);
  int status = 0;
  if (ptrace(PTRACE_SEIZE, pid, nullptr, kTraceOptions | PTRACE_O_EXITKILL) != 0) {
    int err = errno;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    throw UserError(advice_for_errno(err, "ptrace"));
  }
  main_pid_ = pid;
  supervisor::wake_task(pid);
  auto& g = new_group(pid, std::make_shared<AddressSpace>(pid), true);
  new_task(g, pid);
  start_ns_ = monotonic_ns();
  kill(pid, SIGCONT);
}

void Session::attach() {
  pid_t pid = opts_.attach_pid;
  if (kill(pid, 0) != 0) {
    if (errno == ESRCH) throw UserError(fmt::format("no process {}: check the pid", pid));
    throw UserError(advice_for_errno(errno, fmt::format("cannot attach to process {}", pid).c_str()));
  }
  budget_.note_steps(time_steps_apart(kCalibrationSteps));
  main_pid_ = pid;
  auto& g = new_group(pid, std::make_shared<AddressSpace>(pid), true);
  std::set<pid_t> seized;
  // Threads may be created while we attach: repeat until the task list is stable.
  for (bool grew = true; grew;) {
    grew = false;
    std::error_code ec;
    for (auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
      pid_t tid = pid_t(std::stol(e.path().filename().string()));
      if (seized.count(tid)) continue;
      if (ptrace(PTRACE_SEIZE, tid, nullptr, kTraceOptions) != 0) {
        if (errno == ESRCH) continue;
        int err = errno;
        for (auto& [seized_tid, t] : g.tasks) t->detach();
        throw UserError(advice_for_errno(err, fmt::format("cannot attach to process {}", pid).c_str()));
      }
      ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
      seized.insert(tid);
      new_task(g, tid);
      grew = true;
    }
    if (ec) throw UserError(fmt::format("cannot attach to process {}: it does not exist", pid));
  }
  // Collect one stop per task; remember signals that arrive meanwhile.
  // A process stopped by SIGSTOP (or Ctrl-Z) reports a group-stop: it stays stopped.
  std::set<pid_t> stopped;
  while (stopped.size() < g.tasks.size()) {
    auto stop = next_stop(false);
    if (!stop) break;
    const auto [tid, ws] = *stop;
    if (tid == 0) continue;
    Task* t = find_task(tid);
    if (!t) {
      early_stops_.emplace(tid, ws);
      continue;
    }
    t->did_wait(ws);
    if (ws.is_gone()) {
      g.tasks.erase(tid);
      stopped.erase(tid);
      continue;
    }
    if (ws.type() == WaitStatus::Type::SignalStop) t->pending_signal = ws.stop_sig();
    if (ws.is_job_stop()) t->job_stopped = true;
    if (ws.type() == WaitStatus::Type::PtraceEvent && ws.ptrace_event() == PTRACE_EVENT_CLONE) {
      Task& c = new_task(g, pid_t(t->event_msg()));
      c.awaiting_initial_stop = true;
    }
    stopped.insert(tid);
  }
  supervisor::wake_task(pid);
  start_ns_ = monotonic_ns();
  Task& leader = g.tasks.count(pid) ? *g.tasks[pid] : *g.tasks.begin()->second;
  for (auto& [tid, t] : g.tasks)
    if (!t->awaiting_initial_stop) g.counters->add_thread(tid);
  scan_modules(leader);
  initial_check(leader);
  for (auto& [tid, t] : g.tasks) {
    if (t->awaiting_initial_stop) continue;
    int sig = t->pending_signal;
    t->pending_signal = 0;
    t->resume(t->job_stopped ? How::Listen : How::Continue, sig);
  }
}

SessionOutcome Session::run() {
  try {
    if (opts_.attach_pid) attach();
    else launch();
    loop();
    report_probe_costs();
  } catch (const UserError&) {
    if (opts_.attach_pid) detach_all();
    else kill_all();
    throw;
  }
  outcome_.wall_time_s = double(monotonic_ns() - start_ns_) * 1e-9;
  return outcome_;
}

// ---------------------------------------------------------------------------------------
// The dispatcher

void Session::loop() {
  // In the combined mode SIGCHLD (a stop) cuts the reader's sleep short (preload/doorbell.hpp).
  struct ChildSignal {
    tracer::AgentLink* agent;
    explicit ChildSignal(tracer::AgentLink* a) : agent(a) {
      if (agent) agent->catch_child_signal(true);
    }
    ~ChildSignal() {
      if (agent) agent->catch_child_signal(false);
    }
  } child_signal{opts_.agent};
  while (!groups_.empty()) {
    if (finish_requested_) {
      if (opts_.attach_pid) detach_all();
      else kill_all();
      break;
    }
    if (auto action = detaching_ ? supervisor::Action::None : interrupts_.next(monotonic_ns());
        action != supervisor::Action::None) {
      handle_interrupt(action);
      if (groups_.empty()) break;
    }
    auto stop = next_stop(true);
    if (!stop) break;  // ECHILD: nothing left to trace
    limit_probe_inflation();  // every 50 ms at most: in-process probes cost without stops
    if (stop->tid == 0) continue;
    ++stops_seen_;
    dispatch(stop->tid, stop->ws);
  }
}

// In the combined mode the agent's records are drained while waiting (`drain_agent`): the
// reader sleeps on the agents' doorbell until a ring fills past its mark, a stop (SIGCHLD), a
// signal, or its timeout (preload::Collector::wait_and_drain), and never polls the rings.
std::optional<Session::Stop> Session::next_stop(bool drain_agent) {
  int status = 0;
  if (!drain_agent || !opts_.agent) {
    const pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) return errno == EINTR ? std::optional<Stop>(Stop{0, WaitStatus()}) : std::nullopt;
    return Stop{tid, WaitStatus(status)};
  }
  bool traced = true;  // false: ECHILD, nothing left to trace
  pid_t tid = 0;
  opts_.agent->wait_and_drain([&] {
    pid_t got = waitpid(-1, &status, __WALL | WNOHANG);
    if (got < 0) traced = errno == EINTR;
    if (got > 0) tid = got;
    return got == 0;
  });
  if (!traced) return std::nullopt;
  return Stop{tid, WaitStatus(status)};
}

void Session::dispatch(pid_t tid, WaitStatus ws) {
  Task* t = find_task(tid);
  if (!t) {
    if (!ws.is_gone()) early_stops_.emplace(tid, ws);  // a child not announced yet
    return;
  }
  t->did_wait(ws);
  if (detaching_) {
    on_detach_stop(*t, ws);
    return;
  }
  switch (ws.type()) {
    case WaitStatus::Type::Exited:
    case WaitStatus::Type::FatalSignal:
      on_task_gone(*t, ws);
      return;
    case WaitStatus::Type::PtraceEvent:
      on_ptrace_event(*t, ws.ptrace_event());
      return;
    case WaitStatus::Type::GroupStop:
      on_group_stop(*t, ws);
      return;
    case WaitStatus::Type::SignalStop:
      if (ws.stop_sig() == SIGTRAP) on_sigtrap(*t, SIGTRAP);
      else on_signal(*t, ws.stop_sig());
      return;
  }
}

// How a task goes on after a stop that interrupted it (our PTRACE_INTERRUPT wake-up): as it was
// going. A task in the middle of a single step (a displaced instruction in its scratch slot, or
// a longjmp being followed) steps again: continued from the slot, it would run on past the one
// copied instruction into whatever follows it (a SIGSEGV in the program). If the step already
// ran, its SIGTRAP is still pending and is reported before any other instruction runs.
How Session::ongoing(const Task& t) {
  if (t.job_stopped) return How::Listen;
  return t.is_stepping() ? How::Step : How::Continue;
}

void Session::on_ptrace_event(Task& t, int event) {
  switch (event) {
    case PTRACE_EVENT_CLONE:
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
      on_new_child(t, event);
      return;
    case PTRACE_EVENT_EXEC:
      on_exec(t);
      return;
    case PTRACE_EVENT_EXIT:
      on_exit_event(t);
      return;
    default:
      t.resume(ongoing(t));
  }
}

void Session::on_new_child(Task& parent, int event) {
  pid_t child = pid_t(parent.event_msg());
  ThreadGroup& pg = *parent.group;
  Task* c = nullptr;
  if (is_new_thread(event, child, pg.tgid)) {
    restore_span_starts(parent);  // START is a boundary again for the new thread
    c = &new_task(pg, child);  // its counters open at its first stop (adopt_initial_stop)
  } else {
    bool shares_memory = event == PTRACE_EVENT_VFORK;
    auto as = shares_memory ? pg.as : pg.as->clone_for(child);
    bool measured = opts_.follow_fork && pg.measured;
    ThreadGroup& g = new_group(child, as, measured);
    if (measured) {
      g.modules = pg.modules;
      g.initial_check_done = true;
      g.patch_entry = pg.patch_entry;  // its memory holds the parent's patches
      if (opts_.agent && !shares_memory) opts_.agent->forked(pg.tgid, child);
    } else if (shares_memory) {
      g.detach_at_exec = true;
    } else {
      g.detach_on_first_stop = true;
    }
    c = &new_task(g, child);
  }
  c->awaiting_initial_stop = true;
  if (auto it = early_stops_.find(child); it != early_stops_.end()) {
    c->did_wait(it->second);
    early_stops_.erase(it);
    adopt_initial_stop(*c);
  }
  parent.resume(How::Continue);
}

void Session::adopt_initial_stop(Task& t) {
  t.awaiting_initial_stop = false;
  ThreadGroup& g = *t.group;
  if (g.detach_on_first_stop) {
    // An unfollowed fork child: its memory is a copy with our breakpoints in it.
    g.as->remove_all();
    t.detach();
    groups_.erase(g.tgid);
    return;
  }
  // Counters open for a stopped task (ProcessCounters::add_thread): now, before it runs any of
  // its code, not at its parent's clone event, when it may not have stopped yet. Native
  // counting reads a thread's slots at its thread control block, whose address only a stopped
  // thread gives: opened while the thread ran, a thread of OpenBLAS or OpenMP counted nothing.
  if (g.counters && !g.counters->has_thread(t.tid)) g.counters->add_thread(t.tid);
  t.resume(How::Continue);
}

void Session::on_group_stop(Task& t, WaitStatus ws) {
  if (t.awaiting_initial_stop) {
    adopt_initial_stop(t);
    return;
  }
  if (ws.is_job_stop()) {
    t.job_stopped = true;
    t.resume(How::Listen);  // stay stopped, as job control intends
    return;
  }
  // PTRACE_INTERRUPT (our wake-up), or the end of a group-stop (SIGCONT) while listening.
  t.job_stopped = false;
  t.resume(ongoing(t));
}

void Session::on_exec(Task& t) {
  ThreadGroup& g = *t.group;
  if (g.measured) tracker_.process_exit(g.tgid, monotonic_ns(), regions::CloseReason::ProcessExit, this);
  // Every other thread is gone; the exec'ing one now has the group's id.
  for (auto it = g.tasks.begin(); it != g.tasks.end();) {
    if (it->second.get() != &t) {
      if (g.counters) g.counters->remove_thread(it->first);
      it = g.tasks.erase(it);
    } else {
      ++it;
    }
  }
  t.returns.clear();
  t.state = Running{};
  t.longjmp.reset();
  if (g.detach_at_exec) {
    t.detach();
    groups_.erase(g.tgid);
    return;
  }
  if (g.as.use_count() > 1) g.as = std::make_shared<AddressSpace>(g.tgid);  // was shared with a vfork parent
  else g.as->reset(g.tgid);
  g.modules.clear();
  g.suspended_starts.clear();  // the breakpoints went with the old image
  g.patch_entry = TraceeAddr();  // and the patches and the agent
  g.deferred.clear();
  g.initial_check_done = false;
  g.exiting = false;
  if (g.counters && !g.counters->has_thread(t.tid)) g.counters->add_thread(t.tid);
  // The entry point: every library the program links against is loaded by then.
  std::ifstream auxv("/proc/" + std::to_string(g.tgid) + "/auxv", std::ios::binary);
  uint64_t kv[2];
  while (auxv.read(reinterpret_cast<char*>(kv), sizeof kv) && kv[0] != 0) {
    if (kv[0] == 9 /* AT_ENTRY */) g.entry_point = TraceeAddr(kv[1]);
  }
  // A static program starts at its entry point, where it stands now: its own first instructions
  // are not stepped through (they may call a region before its probes are placed), and nothing
  // is left to load.
  const bool at_entry = g.entry_point && t.regs().rip == g.entry_point.value();
  if (g.tgid == main_pid_ && !budget_.calibrated())
    budget_.note_steps(at_entry ? time_steps_apart(kCalibrationSteps) : time_steps(t, kCalibrationSteps));
  scan_modules(t);
  if (g.entry_point) {
    if (at_entry || !add_probe(t, g.entry_point, Probe{ProbeKind::EntryPoint})) initial_check(t);
  } else {
    initial_check(t);
  }
  t.resume(How::Continue, std::exchange(t.pending_signal, 0));
}

void Session::on_exit_event(Task& t) {
  unsigned long msg = t.event_msg();
  t.saw_exit_event = true;
  ThreadGroup& g = *t.group;
  if (g.measured) {
    const auto why = closing(WIFSIGNALED(int(msg)), g.exiting);
    if (opts_.agent) opts_.agent->drain_exiting(g.tgid);  // the thread's last agent boundaries come first
    tracker_.thread_exit(boundary(t, 0), why);
    drop_returns(t, 0, true);
    if (g.counters) g.counters->remove_thread(t.tid);
  }
  t.resume(How::Continue);
}

void Session::on_task_gone(Task& t, WaitStatus ws) {
  ThreadGroup& g = *t.group;
  pid_t tgid = g.tgid;
  bool leader = t.tid == tgid;
  const bool killed = ws.type() == WaitStatus::Type::FatalSignal;
  if (g.measured && !t.saw_exit_event) {
    const auto why = closing(killed, leader);
    if (opts_.agent) opts_.agent->drain_exiting(g.tgid);
    tracker_.thread_exit(boundary(t, 0), why);
    if (g.counters && g.counters->has_thread(t.tid)) g.counters->remove_thread(t.tid);
  }
  remove_task(t);
  if (!leader && !g.tasks.empty()) return;
  if (tgid == main_pid_) {
    if (ws.type() == WaitStatus::Type::Exited) outcome_.ending.exit_status = ws.exit_code();
    else if (ws.type() == WaitStatus::Type::FatalSignal) outcome_.ending.term_signal = ws.fatal_sig();
    supervisor::wake_task(0);
  }
  int64_t now = monotonic_ns();
  if (g.measured && opts_.agent) opts_.agent->drain();
  if (g.measured) tracker_.process_exit(tgid, now, closing(killed, true), this);
  if (tgid == main_pid_ && opts_.agent && !root_ended_) {
    // Everything the agent wrote survives the process: drained to the end now.
    root_ended_ = true;
    opts_.agent->root_ended(tgid, now, outcome_.ending.term_signal.value_or(0));
  }
  groups_.erase(tgid);
}

void Session::on_signal(Task& t, int sig) {
  leave_displaced_step(t);
  if (std::holds_alternative<LongjmpStep>(t.state)) t.state = Running{};
  t.resume(How::Continue, sig);
}

void Session::on_sigtrap(Task& t, int sig) {
  siginfo_t si = t.siginfo();
  if (si.si_code == SI_KERNEL || si.si_code == TRAP_BRKPT) {
    if (std::holds_alternative<LongjmpStep>(t.state)) {
      // A single step over a `syscall` instruction (siglongjmp restoring the signal mask)
      // reports TRAP_BRKPT, not TRAP_TRACE (x86 user_single_step_report): it is still a step
      // unless one of our breakpoints lies just behind rip.
      if (si.si_code == TRAP_BRKPT && !t.group->as->find(TraceeAddr(t.regs().rip - 1))) {
        on_step_done(t);
        return;
      }
      t.state = Running{};
    }
    on_breakpoint(t);
    return;
  }
  if (!t.is_running() && si.si_code > 0) {
    on_step_done(t);
    return;
  }
  if (t.step_trap_queued && si.si_code == TRAP_TRACE) {
    t.step_trap_queued = false;  // the trap of a step already accounted for (leave_displaced_step)
    t.resume(How::Continue);
    return;
  }
  t.resume(How::Continue, sig);  // a SIGTRAP meant for the program
}

// ---------------------------------------------------------------------------------------
// Interrupts, detaching, killing

// The signal policy (supervisor/signals.hpp): the program ends as it would without roofprof
// (a signal sent to roofprof alone is passed on), or at once: detached when attached, killed
// when launched. What was measured is kept; the run is incomplete.
void Session::handle_interrupt(supervisor::Action action) {
  outcome_.complete = false;
  if (opts_.attach_pid) {
    begin_detach();  // the loop goes on until every task is detached
    return;
  }
  if (action == supervisor::Action::Forward) {
    if (main_pid_ > 0) kill(main_pid_, interrupts_.signal());
    return;
  }
  kill_all();
}

void Session::begin_detach() {
  if (detaching_) return;
  detaching_ = true;
  supervisor::wake_task(0);
  for (auto& [pid, g] : groups_)
    for (auto& [tid, t] : g->tasks) t->interrupt();
  for (auto& [tid, ws] : early_stops_) {  // never ours
    Task unannounced(tid, nullptr);
    unannounced.did_wait(ws);
    unannounced.detach();
  }
  early_stops_.clear();
}

void Session::detach_all() {
  begin_detach();
  while (!groups_.empty()) {
    auto stop = next_stop(false);
    if (!stop) break;
    if (stop->tid) dispatch(stop->tid, stop->ws);
  }
  groups_.clear();
}

// A stop while detaching (detach.hpp): the task is settled and parked; a child created now is
// traced too and is detached with the others. When every task is parked, finish_detach().
void Session::on_detach_stop(Task& t, WaitStatus ws) {
  if (ws.is_gone()) {
    on_task_gone(t, ws);
  } else {
    if (creates_child(ws)) {
      pid_t child = pid_t(t.event_msg());
      ThreadGroup& g = is_new_thread(ws.ptrace_event(), child, t.group->tgid)
                           ? *t.group
                           : new_group(child, t.group->as->clone_for(child), false);
      Task& c = new_task(g, child);
      c.awaiting_initial_stop = true;
      if (auto it = early_stops_.find(child); it != early_stops_.end()) {
        c.did_wait(it->second);
        c.awaiting_initial_stop = false;
        c.state = Detaching{};
        early_stops_.erase(it);
      }
    }
    t.awaiting_initial_stop = false;
    settle_for_detach(t, ws);
    if (!park(t)) return;
  }
  for (auto& [pid, g] : groups_)
    for (auto& [tid, task] : g->tasks)
      if (!std::holds_alternative<Detaching>(task->state)) return;
  finish_detach();
}

void Session::finish_detach() {
  int64_t now = monotonic_ns();
  for (auto& [pid, g] : groups_) {
    if (g->measured) tracker_.process_exit(pid, now, regions::CloseReason::Detach, this);
    detach_group(*g);
  }
  groups_.clear();
}

void Session::kill_all() {
  supervisor::wake_task(0);
  for (auto& [pid, g] : groups_) kill(pid, SIGKILL);
  int64_t now = monotonic_ns();
  for (auto& [pid, g] : groups_)
    if (g->measured) tracker_.process_exit(pid, now, regions::CloseReason::Detach, this);
  // Reap; tasks stopped at PTRACE_EVENT_EXIT need one more resume.
  while (auto stop = next_stop(false)) {
    const auto [tid, ws] = *stop;
    if (tid == 0) continue;
    Task unannounced(tid, nullptr);  // a child whose creation was not seen yet
    Task* t = find_task(tid);
    Task& task = t ? *t : unannounced;
    task.did_wait(ws);
    if (!ws.is_gone()) task.resume(How::Continue);
    if (tid == main_pid_ && ws.type() == WaitStatus::Type::FatalSignal) outcome_.ending.term_signal = ws.fatal_sig();
  }
  groups_.clear();
  if (opts_.agent && !root_ended_ && main_pid_ > 0) {
    root_ended_ = true;
    opts_.agent->root_ended(main_pid_, now, outcome_.ending.term_signal.value_or(0));
  }
}

}  // namespace roofprof::tracer
