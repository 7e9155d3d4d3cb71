#include "supervisor/ending.hpp"
#include "supervisor/signals.hpp"

#include <signal.h>
#include <sys/ptrace.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>

namespace roofprof {

Interrupted::Interrupted(int sig)
    : std::runtime_error("interrupted by " +
                         (sigabbrev_np(sig) ? "SIG" + std::string(sigabbrev_np(sig)) : "signal " + std::to_string(sig)) +
                         " before the program started: nothing was measured, no result written"),
      signal_(sig) {}

int Interrupted::exit_status() const { return supervisor::Ending::requested(signal_).exit_code(); }

}  // namespace roofprof

namespace roofprof::supervisor {

namespace {

// Signal handlers reach process-wide state only.
std::atomic<int> g_requests{0};        // requests received
std::atomic<int> g_consumed{0};        // requests a policy has acted on (the rest wait for one)
std::atomic<int> g_last_signal{0};     // the signal of the latest request
std::atomic<bool> g_from_process{false};  // the latest was sent by a process (kill), not the terminal
std::atomic<pid_t> g_wake{0};
std::atomic<bool> g_installed{false};
sigset_t g_handled;  // the signals install_signal_policy gave a handler
timer_t g_timer;
bool g_timer_made = false;

// The grace timer's signal: wakes the waiting supervisor, nothing else.
int timer_signal() { return SIGRTMIN + 1; }

void poke() {
  pid_t wake = g_wake.load();
  if (wake > 0) ptrace(PTRACE_INTERRUPT, wake, nullptr, nullptr);
}

void on_request(int sig, siginfo_t* info, void*) {
  // Our own write to a closed pipe: the kernel names us as the sender.
  if (sig == SIGPIPE && info && info->si_code == SI_USER && info->si_pid == ::getpid()) return;
  g_from_process.store(info && (info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL));
  g_last_signal.store(sig);
  g_requests.fetch_add(1);
  poke();
}

void on_timer(int, siginfo_t*, void*) { poke(); }

void arm_timer(int64_t ns) {
  if (!g_timer_made) {
    sigevent sev{};
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = timer_signal();
    if (timer_create(CLOCK_MONOTONIC, &sev, &g_timer) != 0) return;  // the waits still poll
    g_timer_made = true;
  }
  itimerspec its{};
  its.it_value.tv_sec = time_t(ns / 1'000'000'000);
  its.it_value.tv_nsec = long(ns % 1'000'000'000) + 1;
  timer_settime(g_timer, 0, &its, nullptr);
}

}  // namespace

void install_signal_policy() {
  if (g_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_request;
  sa.sa_flags = SA_SIGINFO;  // no SA_RESTART: waits return EINTR
  sigemptyset(&sa.sa_mask);
  sigemptyset(&g_handled);
  for (int s : kPolicySignals) {
    // Ignored when roofprof started (nohup, a batch system): stays ignored, for roofprof and
    // for the program, which inherits the disposition as it would without roofprof.
    struct sigaction old {};
    if (sigaction(s, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
    if (sigaction(s, &sa, nullptr) == 0) sigaddset(&g_handled, s);
  }
  struct sigaction st {};
  st.sa_sigaction = on_timer;
  st.sa_flags = SA_SIGINFO;
  sigemptyset(&st.sa_mask);
  sigaction(timer_signal(), &st, nullptr);
}

void release_signal_policy() {
  if (!g_installed.exchange(false)) return;
  for (int s : kPolicySignals)
    if (sigismember(&g_handled, s)) ::signal(s, SIG_DFL);
  if (const int sig = pending_request_signal()) ::raise(sig);
}

void default_signals_in_child() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int s : kPolicySignals)
    if (sigismember(&g_handled, s)) sigaction(s, &dfl, nullptr);
}

int pending_request_signal() { return g_requests.load() > g_consumed.load() ? g_last_signal.load() : 0; }

void end_if_requested() {
  if (const int sig = pending_request_signal()) throw Interrupted(sig);
}

void wake_task(pid_t tid) { g_wake.store(tid); }

bool interrupted() { return g_requests.load() > 0; }

int last_request_signal() { return g_last_signal.load(); }

InterruptPolicy::InterruptPolicy(bool attached, int64_t grace_ns)
    : attached_(attached), grace_ns_(grace_ns), base_(g_consumed.load()) {}

Action InterruptPolicy::next(int64_t now_ns) {
  if (ended_) return Action::None;
  int seen = g_requests.load() - base_;
  if (seen > requests_) {
    bool first = requests_ == 0;
    requests_ = seen;
    g_consumed.store(base_ + seen);
    signal_ = g_last_signal.load();
    if (attached_ || !first || seen > 1) {
      ended_ = true;
      return Action::End;
    }
    deadline_ns_ = now_ns + grace_ns_;
    arm_timer(grace_ns_);
    // A terminal's signal reached the program's process group already: not sent twice.
    return g_from_process.load() ? Action::Forward : Action::None;
  }
  if (requests_ > 0 && now_ns >= deadline_ns_) {
    ended_ = true;
    return Action::End;
  }
  return Action::None;
}

}  // namespace roofprof::supervisor
