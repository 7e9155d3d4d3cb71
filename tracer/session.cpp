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
#include <set>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/program.hpp"

namespace roofprof::tracer {

namespace {

// Interrupt requests from SIGINT/SIGTERM. Signal handlers can only reach process-wide
// state; the session polls it between stops. g_wake_tid is the task the handler interrupts
// so that a blocked waitpid() returns promptly.
std::atomic<int> g_interrupt_sig{0};
std::atomic<bool> g_interrupt_from_user{false};
std::atomic<pid_t> g_wake_tid{0};

void on_interrupt_signal(int sig, siginfo_t* info, void*) {
  g_interrupt_from_user.store(info && (info->si_code == SI_USER || info->si_code == SI_QUEUE));
  g_interrupt_sig.store(sig);
  pid_t wake = g_wake_tid.load();
  if (wake > 0) ptrace(PTRACE_INTERRUPT, wake, nullptr, nullptr);
}

constexpr long kTraceOptions = PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                               PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;

std::optional<pid_t> tgid_of(pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Tgid:", 0) == 0) return pid_t(std::stol(line.substr(5)));
  return std::nullopt;
}

}  // namespace

void Session::install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_interrupt_signal;
  sa.sa_flags = SA_SIGINFO;  // no SA_RESTART: waitpid() returns EINTR
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

Session::Session(SessionOptions opts, counters::Backend& backend, probes::Planner& planner,
                 regions::Tracker::Sink sink)
    : opts_(std::move(opts)), backend_(backend), planner_(planner), tracker_(*this, std::move(sink)) {}

Session::~Session() { g_wake_tid.store(0); }

CounterValues Session::read(int pid, regions::Tid tid) {
  auto it = groups_.find(pid);
  if (it == groups_.end() || !it->second->counters) return {};
  auto& c = *it->second->counters;
  return opts_.scope == regions::Scope::Process ? c.read_process() : c.read_thread(tid);
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
  auto t = std::make_unique<Task>();
  t->tid = tid;
  t->group = &g;
  auto& ref = *t;
  g.tasks[tid] = std::move(t);
  return ref;
}

void Session::remove_task(Task& t) {
  ThreadGroup& g = *t.group;
  g.tasks.erase(t.tid);
}

// ---------------------------------------------------------------------------------------
// Starting

void Session::launch() {
  const std::string& prog = opts_.argv.at(0);
  std::string path = runnable_program(prog);

  std::vector<char*> argv;
  for (auto& a : opts_.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) throw UserError(advice_for_errno(errno, "fork"));
  if (pid == 0) {
    char* const* env = opts_.child_env ? opts_.child_env() : nullptr;
    raise(SIGSTOP);  // wait to be seized
    if (env) execve(path.c_str(), argv.data(), env);
    else execv(path.c_str(), argv.data());
    std::fprintf(stderr, "roofprof: cannot run '%s': %s\n", prog.c_str(), std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, WSTOPPED) != pid || !WIFSTOPPED(status)) {
    throw UserError(fmt::format("cannot start '{}'", prog));
  }
  if (ptrace(PTRACE_SEIZE, pid, nullptr, kTraceOptions | PTRACE_O_EXITKILL) != 0) {
    int err = errno;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    throw UserError(advice_for_errno(err, "ptrace"));
  }
  main_pid_ = pid;
  g_wake_tid.store(pid);
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
        for (pid_t s : seized) ptrace(PTRACE_DETACH, s, nullptr, nullptr);
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
  std::set<pid_t> stopped;
  while (stopped.size() < g.tasks.size()) {
    int status = 0;
    pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) break;
    WaitStatus ws(status);
    Task* t = find_task(tid);
    if (!t) {
      early_stops_.emplace(tid, ws);
      continue;
    }
    if (ws.is_gone()) {
      g.tasks.erase(tid);
      stopped.erase(tid);
      continue;
    }
    if (ws.type() == WaitStatus::Type::SignalStop) t->pending_signal = ws.stop_sig();
    if (ws.type() == WaitStatus::Type::PtraceEvent && (ws.ptrace_event() == PTRACE_EVENT_CLONE)) {
      unsigned long child = 0;
      ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child);
      Task& c = new_task(g, pid_t(child));
      c.awaiting_initial_stop = true;
    }
    stopped.insert(tid);
  }
  g_wake_tid.store(pid);
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
    resume(*t, How::Continue, sig);
  }
}

SessionOutcome Session::run() {
  try {
    if (opts_.attach_pid) attach();
    else launch();
    loop();
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

namespace {
void wake_on_child(int) {}  // SIGCHLD only interrupts the combined mode's sleep
}  // namespace

void Session::loop() {
  struct sigaction old_chld {};
  if (opts_.agent) {
    struct sigaction sa {};
    sa.sa_handler = wake_on_child;  // no SA_RESTART: the wait's nanosleep returns at once
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_chld);
  }
  struct RestoreChld {
    bool on;
    struct sigaction* old;
    ~RestoreChld() {
      if (on) sigaction(SIGCHLD, old, nullptr);
    }
  } restore{opts_.agent != nullptr, &old_chld};
  while (!groups_.empty()) {
    if (finish_requested_) {
      if (opts_.attach_pid) detach_all();
      else kill_all();
      break;
    }
    if (g_interrupt_sig.load() != 0) {
      handle_interrupt();
      if (groups_.empty()) break;
    }
    int status = 0;
    pid_t tid = 0;
    if (!wait_for_stop(tid, status)) break;  // ECHILD: nothing left to trace
    if (tid == 0) continue;
    dispatch(tid, WaitStatus(status));
  }
}

// The next stop (tid 0: none yet, look at interrupts again). In the combined mode the
// agent's records are drained while waiting: at once while records keep coming (a full ring
// makes the program wait), otherwise every 2 ms at most while stops keep coming; the wait
// sleeps at most 2 ms (SIGCHLD cuts it short). False: nothing left to trace.
bool Session::wait_for_stop(pid_t& tid, int& status) {
  if (!opts_.agent) {
    tid = waitpid(-1, &status, __WALL);
    if (tid < 0 && errno == EINTR) tid = 0;
    return tid >= 0;
  }
  constexpr int64_t kPollNs = 2'000'000;
  int64_t now = monotonic_ns();
  size_t replayed = 0;
  if (agent_busy_ || now - last_agent_poll_ns_ >= kPollNs) {
    replayed = opts_.agent->poll();
    last_agent_poll_ns_ = now;
    agent_busy_ = replayed > 0;
  }
  tid = waitpid(-1, &status, __WALL | WNOHANG);
  if (tid < 0) {
    if (errno == EINTR) tid = 0;
    return tid >= 0;
  }
  if (tid == 0 && replayed == 0) {
    struct timespec ts {0, kPollNs};
    nanosleep(&ts, nullptr);
  }
  return true;
}

void Session::dispatch(pid_t tid, WaitStatus ws) {
  Task* t = find_task(tid);
  if (!t) {
    if (!ws.is_gone()) early_stops_.emplace(tid, ws);  // a child not announced yet
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
Session::How Session::ongoing(const Task& t) { return t.mode == Task::Mode::Running ? How::Continue : How::Step; }

void Session::resume(Task& t, How how, int sig) {
  long req = how == How::Step ? PTRACE_SINGLESTEP : how == How::Listen ? PTRACE_LISTEN : PTRACE_CONT;
  // ESRCH means the task died meanwhile; its exit is reported by waitpid.
  ptrace(__ptrace_request(req), t.tid, nullptr, reinterpret_cast<void*>(long(sig)));
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
      resume(t, ongoing(t));
  }
}

void Session::on_new_child(Task& parent, int event) {
  unsigned long msg = 0;
  ptrace(PTRACE_GETEVENTMSG, parent.tid, nullptr, &msg);
  pid_t child = pid_t(msg);
  ThreadGroup& pg = *parent.group;
  Task* c = nullptr;
  bool is_thread = event == PTRACE_EVENT_CLONE && tgid_of(child).value_or(child) == pg.tgid;
  if (is_thread) {
    restore_span_starts(parent);  // START is a boundary again for the new thread
    c = &new_task(pg, child);
    if (pg.counters) pg.counters->add_thread(child);
  } else {
    bool shares_memory = event == PTRACE_EVENT_VFORK;
    auto as = shares_memory ? pg.as : pg.as->clone_for(child);
    bool measured = opts_.follow_fork && pg.measured;
    ThreadGroup& g = new_group(child, as, measured);
    if (measured) {
      g.counters->add_thread(child);
      g.modules = pg.modules;
      g.initial_check_done = true;
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
    early_stops_.erase(it);
    adopt_initial_stop(*c);
  }
  resume(parent, How::Continue);
}

void Session::adopt_initial_stop(Task& t) {
  t.awaiting_initial_stop = false;
  ThreadGroup& g = *t.group;
  if (g.detach_on_first_stop) {
    // An unfollowed fork child: its memory is a copy with our breakpoints in it.
    g.as->remove_all();
    ptrace(PTRACE_DETACH, t.tid, nullptr, nullptr);
    groups_.erase(g.tgid);
    return;
  }
  resume(t, How::Continue);
}

void Session::on_group_stop(Task& t, WaitStatus ws) {
  if (t.awaiting_initial_stop) {
    adopt_initial_stop(t);
    return;
  }
  int sig = ws.stop_sig();
  if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
    resume(t, How::Listen);  // stay stopped, as job control intends
    return;
  }
  resume(t, ongoing(t));  // PTRACE_INTERRUPT (our wake-up)
}

void Session::on_exec(Task& t) {
  unsigned long former = 0;
  ptrace(PTRACE_GETEVENTMSG, t.tid, nullptr, &former);
  ThreadGroup& g = *t.group;
  if (g.measured) tracker_.process_exit(g.tgid, monotonic_ns(), regions::CloseReason::ProcessExit);
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
  t.mode = Task::Mode::Running;
  if (g.detach_at_exec) {
    ptrace(PTRACE_DETACH, t.tid, nullptr, nullptr);
    groups_.erase(g.tgid);
    return;
  }
  if (g.as.use_count() > 1) g.as = std::make_shared<AddressSpace>(g.tgid);  // was shared with a vfork parent
  else g.as->reset(g.tgid);
  g.modules.clear();
  g.suspended_starts.clear();  // the breakpoints went with the old image
  g.initial_check_done = false;
  g.exiting = false;
  if (g.counters && !g.counters->has_thread(t.tid)) g.counters->add_thread(t.tid);
  scan_modules(t);
  // The entry point: every library the program links against is loaded by then.
  std::ifstream auxv("/proc/" + std::to_string(g.tgid) + "/auxv", std::ios::binary);
  uint64_t kv[2];
  while (auxv.read(reinterpret_cast<char*>(kv), sizeof kv) && kv[0] != 0) {
    if (kv[0] == 9 /* AT_ENTRY */) g.entry_point = TraceeAddr(kv[1]);
  }
  if (g.entry_point) {
    g.as->add_probe(g.entry_point, Probe{ProbeKind::EntryPoint}, [&](TraceeAddr near, size_t size) {
      return map_scratch(t, near, size);
    });
  } else {
    initial_check(t);
  }
  resume(t, How::Continue);
}

void Session::on_exit_event(Task& t) {
  unsigned long msg = 0;
  ptrace(PTRACE_GETEVENTMSG, t.tid, nullptr, &msg);
  t.saw_exit_event = true;
  ThreadGroup& g = *t.group;
  if (g.measured) {
    int st = int(msg);
    auto why = WIFSIGNALED(st) ? regions::CloseReason::Crash
               : g.exiting     ? regions::CloseReason::ProcessExit
                               : regions::CloseReason::ThreadExit;
    tracker_.thread_exit(boundary(t, 0), why);
    drop_returns(t, 0, true);
    if (g.counters) g.counters->remove_thread(t.tid);
  }
  resume(t, How::Continue);
}

void Session::on_task_gone(Task& t, WaitStatus ws) {
  ThreadGroup& g = *t.group;
  pid_t tgid = g.tgid;
  bool leader = t.tid == tgid;
  if (g.measured && !t.saw_exit_event) {
    auto why = ws.type() == WaitStatus::Type::FatalSignal ? regions::CloseReason::Crash
               : leader                                   ? regions::CloseReason::ProcessExit
                                                          : regions::CloseReason::ThreadExit;
    tracker_.thread_exit(boundary(t, 0), why);
    if (g.counters && g.counters->has_thread(t.tid)) g.counters->remove_thread(t.tid);
  }
  remove_task(t);
  if (!leader && !g.tasks.empty()) return;
  if (tgid == main_pid_) {
    if (ws.type() == WaitStatus::Type::Exited) outcome_.exit_status = ws.exit_code();
    else if (ws.type() == WaitStatus::Type::FatalSignal) outcome_.term_signal = ws.fatal_sig();
    g_wake_tid.store(0);
  }
  int64_t now = monotonic_ns();
  if (g.measured)
    tracker_.process_exit(tgid, now,
                          ws.type() == WaitStatus::Type::FatalSignal ? regions::CloseReason::Crash
                                                                     : regions::CloseReason::ProcessExit);
  if (tgid == main_pid_ && opts_.agent && !root_ended_) {
    // Everything the agent wrote survives the process: drained to the end now.
    root_ended_ = true;
    opts_.agent->root_ended(tgid, now, outcome_.term_signal.value_or(0));
  }
  groups_.erase(tgid);
}

void Session::on_signal(Task& t, int sig) {
  if (t.mode == Task::Mode::DisplacedStep) {
    // The copied instruction has not run: go back to the breakpoint so that the signal
    // handler (if any) returns there and the probe is taken again (probes are idempotent).
    user_regs_struct regs{};
    ptrace(PTRACE_GETREGS, t.tid, nullptr, &regs);
    if (TraceeAddr(regs.rip) == t.step_slot) {
      regs.rip = t.step_at.value();
      ptrace(PTRACE_SETREGS, t.tid, nullptr, &regs);
    }
  }
  t.mode = Task::Mode::Running;
  resume(t, How::Continue, sig);
}

void Session::on_sigtrap(Task& t, int sig) {
  siginfo_t si{};
  ptrace(PTRACE_GETSIGINFO, t.tid, nullptr, &si);
  if (si.si_code == SI_KERNEL || si.si_code == TRAP_BRKPT) {
    if (t.mode == Task::Mode::LongjmpStep) {
      // A single step over a `syscall` instruction (siglongjmp restoring the signal mask)
      // reports TRAP_BRKPT, not TRAP_TRACE (x86 user_single_step_report): it is still a step
      // unless one of our breakpoints lies just behind rip.
      user_regs_struct regs{};
      if (si.si_code == TRAP_BRKPT && ptrace(PTRACE_GETREGS, t.tid, nullptr, &regs) == 0 &&
          !t.group->as->find(TraceeAddr(regs.rip - 1))) {
        on_step_done(t);
        return;
      }
      t.mode = Task::Mode::Running;
    }
    on_breakpoint(t);
    return;
  }
  if (t.mode != Task::Mode::Running && (si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT || si.si_code > 0)) {
    on_step_done(t);
    return;
  }
  resume(t, How::Continue, sig);  // a SIGTRAP meant for the program
}

// ---------------------------------------------------------------------------------------
// Interrupts, detaching, killing

void Session::handle_interrupt() {
  int sig = g_interrupt_sig.exchange(0);
  ++interrupts_seen_;
  outcome_.complete = false;
  if (opts_.attach_pid) {
    detach_all();
    return;
  }
  if (interrupts_seen_ == 1) {
    // A terminal's Ctrl-C already reached the program (same process group); a signal sent
    // to roofprof alone is passed on. The program ends as it would without roofprof.
    if (g_interrupt_from_user.load() && main_pid_ > 0) kill(main_pid_, sig);
    return;
  }
  kill_all();
}

void Session::detach_all() {
  detaching_ = true;
  g_wake_tid.store(0);
  // Stop every task, finishing any step in progress, with rip at a clean instruction.
  std::set<pid_t> parked;
  size_t total = 0;
  for (auto& [pid, g] : groups_) {
    for (auto& [tid, t] : g->tasks) {
      ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
      ++total;
    }
  }
  while (parked.size() < total) {
    int status = 0;
    pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    Task* t = find_task(tid);
    WaitStatus ws(status);
    if (!t) continue;
    if (ws.is_gone()) {
      --total;
      on_task_gone(*t, ws);
      continue;
    }
    user_regs_struct regs{};
    ptrace(PTRACE_GETREGS, tid, nullptr, &regs);
    if (t->mode == Task::Mode::DisplacedStep) {
      if (TraceeAddr(regs.rip) == t->step_slot) regs.rip = t->step_at.value();
      else fixup_after_step(t->step_insn, regs, t->group->as->mem(), t->step_at, t->step_slot);
      ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
    } else if (ws.type() == WaitStatus::Type::SignalStop && ws.stop_sig() == SIGTRAP &&
               t->group->as->find(TraceeAddr(regs.rip - 1))) {
      regs.rip -= 1;  // stopped on one of our breakpoints: back to the instruction
      ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
    } else if (ws.type() == WaitStatus::Type::SignalStop) {
      t->pending_signal = ws.stop_sig();
    }
    t->mode = Task::Mode::Running;
    parked.insert(tid);
  }
  int64_t now = monotonic_ns();
  for (auto& [pid, g] : groups_) {
    if (g->measured) tracker_.process_exit(pid, now, regions::CloseReason::Detach);
    g->as->remove_all();
    for (auto& [tid, t] : g->tasks) {
      if (g->counters && g->counters->has_thread(tid)) g->counters->remove_thread(tid);
      ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(long(t->pending_signal)));
    }
  }
  groups_.clear();
}

void Session::kill_all() {
  g_wake_tid.store(0);
  for (auto& [pid, g] : groups_) kill(pid, SIGKILL);
  int64_t now = monotonic_ns();
  for (auto& [pid, g] : groups_)
    if (g->measured) tracker_.process_exit(pid, now, regions::CloseReason::Detach);
  // Reap; tasks stopped at PTRACE_EVENT_EXIT need one more resume.
  while (true) {
    int status = 0;
    pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (WIFSTOPPED(status)) ptrace(PTRACE_CONT, tid, nullptr, nullptr);
    if (tid == main_pid_ && WIFSIGNALED(status)) outcome_.term_signal = WTERMSIG(status);
  }
  groups_.clear();
  if (opts_.agent && !root_ended_ && main_pid_ > 0) {
    root_ended_ = true;
    opts_.agent->root_ended(main_pid_, now, outcome_.term_signal.value_or(0));
  }
}

}  // namespace roofprof::tracer
