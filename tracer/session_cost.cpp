// What the probes of a run cost (docs/methodology.md, "What probes cost").
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fmt/format.h>

#include "common/clock.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {
namespace {
constexpr size_t kSamples = 64;               // recent step round trips kept
constexpr int64_t kMinWallNs = 200'000'000;  // shorter runs: no verdict
constexpr int64_t kCheckEveryNs = 50'000'000;  // how often the inflation is looked at
}  // namespace

Session::HandlingTimer::HandlingTimer(Session& s) : s_(s), t0_(monotonic_ns()), excluded0_(s.not_probe_cost_ns_) {}

Session::HandlingTimer::~HandlingTimer() {
  s_.handling_ns_ += monotonic_ns() - t0_ - (s_.not_probe_cost_ns_ - excluded0_);
  ++s_.handled_stops_;
}

void Session::note_step_time(int64_t ns) {
  if (ns <= 0) return;
  if (step_ns_.size() < kSamples) step_ns_.push_back(ns);
  else step_ns_[step_next_++ % kSamples] = ns;
}

int64_t Session::stop_cost_ns() const {
  if (step_ns_.empty()) return 0;
  std::vector<int64_t> v = step_ns_;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2] + (handled_stops_ ? handling_ns_ / int64_t(handled_stops_) : 0);
}

// At the exec stop of a dynamically linked program roofprof started: 16 single steps of its first
// instructions (the dynamic linker's, which run next anyway; a static program's own are
// measured apart, on a child of roofprof's), each a ptrace round trip with one instruction
// in it: the kernel's part of a stop. Steps of displaced instructions add samples during the
// run; our own part (reading counters, registers, memory) is measured on every stop.
void Session::calibrate_stop_cost(Task& t) {
  for (int i = 0; i < 16; ++i) {
    const int64_t t0 = monotonic_ns();
    t.resume(How::Step);
    const WaitStatus ws = t.wait_own();
    if (ws.type() != WaitStatus::Type::SignalStop || ws.stop_sig() != SIGTRAP) {
      if (ws.type() == WaitStatus::Type::SignalStop) t.pending_signal = ws.stop_sig();  // delivered later
      return;
    }
    note_step_time(monotonic_ns() - t0);
  }
}

// Attached (--pid): the program's threads may sit in system calls that a single step would wait
// for, so the kernel's round trip is measured on a child of roofprof's own instead, looping on
// one instruction: the same kernel, the same machine.
void Session::calibrate_stop_cost_apart() {
  const pid_t child = fork();
  if (child < 0) return;
  if (child == 0) {
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == 0) raise(SIGSTOP);
    for (;;) __asm__ volatile("pause");
  }
  int status = 0;
  if (waitpid(child, &status, __WALL) == child && WIFSTOPPED(status)) {
    for (int i = 0; i < 16; ++i) {
      const int64_t t0 = monotonic_ns();
      if (ptrace(PTRACE_SINGLESTEP, child, nullptr, nullptr) != 0) break;
      if (waitpid(child, &status, __WALL) != child || !WIFSTOPPED(status)) break;
      note_step_time(monotonic_ns() - t0);
    }
  }
  kill(child, SIGKILL);
  waitpid(child, &status, __WALL);
}

namespace {

// Nanoseconds a thread has run its own code (user CPU time, /proc/PID/task/TID/stat's utime): a
// thread stopped by ptrace does not run, nor does a sleeping one, and the kernel's work of each
// stop (the trap, the signal, the resume) is the probes', not the program's. -1 when unreadable
// (it ended).
int64_t thread_run_ns(pid_t tgid, pid_t tid) {
  const std::string path = fmt::format("/proc/{}/task/{}/stat", tgid, tid);
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return -1;
  char line[1024] = {0};
  const bool got = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  const char* after = got ? std::strrchr(line, ')') : nullptr;  // the name may hold spaces
  unsigned long long utime = 0;
  // Fields after the name: state (3), then ppid ... majflt (4-12), cmajflt (13), utime (14).
  if (!after || std::sscanf(after + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu", &utime) != 1) return -1;
  static const long ticks = std::max(1L, ::sysconf(_SC_CLK_TCK));
  return int64_t(utime) * (1000000000LL / ticks);
}

}  // namespace

void Session::count_probe_stops(const Task& t, regions::RegionId region, uint64_t stops) {
  probe_stops_[region] += stops;
  ThreadStops& ts = thread_stops_[t.tid];
  if (ts.since_ns == 0)
    ts = ThreadStops{t.group->tgid, monotonic_ns(), std::max<int64_t>(thread_run_ns(t.group->tgid, t.tid), 0), {}};
  ts.by_region[region] += stops;
}

// At the end: a region whose probes cost a large part of the run is reported with the estimate.
// Attached (--pid), every region's cost is kept: its calls can be measured by breakpoints only,
// and `run` says what they add to each call.
void Session::report_probe_costs() {
  const int64_t wall = monotonic_ns() - start_ns_;
  const int64_t cost = stop_cost_ns();
  const bool attached = opts_.attach_pid != 0;
  if ((wall < kMinWallNs && !attached) || cost == 0) return;
  for (const auto& [region, stops] : probe_stops_) {
    if (probing_stopped(region)) continue;  // said when it stopped
    // Stops of several threads overlap in part: the estimate is at most the wall time.
    const double est = std::min(double(stops) * double(cost), double(wall));
    if (attached) {
      outcome_.probe_costs[region] = result::ProbeCost{stops, est * 1e-9, std::nullopt};
      continue;
    }
    if (est < 0.25 * double(wall)) continue;  // the estimate is low (a step, not a trap): a quarter is about half
    outcome_.probe_costs[region] = result::ProbeCost{stops, est * 1e-9, std::nullopt};
    outcome_.warnings.push_back(fmt::format(
        "region '{}': its probes made {} ptrace stops, about {:.2f} s of the run's {:.2f} s at {:.0f} us a stop "
        "(estimated from measured stops): its times include that overhead",
        planner_.regions().at(region).name, stops, est * 1e-9, double(wall) * 1e-9, double(cost) * 1e-3));
  }
}

bool Session::probing_stopped(regions::RegionId region) const {
  auto it = outcome_.probe_costs.find(region);
  return it != outcome_.probe_costs.end() && it->second.stopped_at_s;
}

// The run so far took `wall`; its probes' stops took about `total` of it, so without them it
// would have taken wall - total (stops of several threads overlap: their cost is spread over
// the live threads). When the probes still running would make it more than 10x slower
// (--max-probe-slowdown), the costliest of them stop until the rest would not; their sunk cost
// stays in the run.
void Session::limit_probe_inflation() {
  const int64_t now = monotonic_ns();
  if (now < next_cost_check_ns_ || opts_.max_probe_slowdown <= 0) return;
  next_cost_check_ns_ = now + kCheckEveryNs;
  const int64_t wall = now - start_ns_;
  const int64_t cost = stop_cost_ns();
  if (wall < kMinWallNs || (cost == 0 && !opts_.agent)) return;
  size_t threads = 0;
  for (const auto& [tgid, g] : groups_)
    if (g->measured) threads += g->tasks.size();
  const double spread = double(std::max<size_t>(threads, 1));
  // Every mechanism's cost, per region: breakpoints' stops, and the in-process agent's calls.
  std::map<regions::RegionId, double> region_cost;
  if (opts_.agent) region_cost = opts_.agent->probe_cost_ns();
  for (const auto& [region, stops] : probe_stops_) region_cost[region] += double(stops) * double(cost);
  double total = 0, active = 0;
  std::vector<std::pair<double, regions::RegionId>> by_cost;
  for (const auto& [region, ns] : region_cost) {
    const double c = ns / spread;
    total += c;
    if (probing_stopped(region)) continue;
    active += c;
    by_cost.emplace_back(c, region);
  }
  const double bare = std::max(double(wall) - total, 0.01 * double(wall));
  std::sort(by_cost.rbegin(), by_cost.rend());
  for (const auto& [c, region] : by_cost) {
    if (active <= (opts_.max_probe_slowdown - 1) * bare) break;
    stop_probing(region, wall, c * spread * 1e-9);
    active -= c;
  }
  if (cost > 0) limit_thread_inflation(now, cost, wall);
}


// Per thread: a thread stopped by its probes does not run; several threads' stops queue for the
// one tracer, so each stop of a thread waits for at most one stop of every other thread that
// stops too. A thread's stopped time is then at most its stops x the stop cost x the threads
// that stop, and at most the time it did not run its code (its age less its user CPU time: sleeping and
// waiting for a CPU are not the probes', but they are bounded by the first term; a thread
// resumed from a stop waits for a CPU again, which is the probes'). When that time would make the thread more
// than --max-probe-slowdown times slower than without it, its costliest regions stop being
// probed, as the run's budget does.
void Session::limit_thread_inflation(int64_t now, int64_t cost, int64_t wall) {
  const double queue = double(std::max<size_t>(thread_stops_.size(), 1));
  for (auto it = thread_stops_.begin(); it != thread_stops_.end();) {
    const pid_t tid = it->first;
    ThreadStops& ts = it->second;
    const int64_t run = thread_run_ns(ts.tgid, tid);
    if (run < 0) {
      it = thread_stops_.erase(it);  // ended: its stops stay in the run's count
      continue;
    }
    ++it;
    const double age = double(now - ts.since_ns);
    if (age < double(kMinWallNs)) continue;
    double stops = 0;
    std::vector<std::pair<uint64_t, regions::RegionId>> by_stops;
    for (const auto& [region, n] : ts.by_region) {
      if (probing_stopped(region)) continue;
      stops += double(n);
      by_stops.emplace_back(n, region);
    }
    // Since its first probe stop: schedstat counts from the thread's start.
    const double not_running = std::max(age - double(run - ts.run0_ns), 0.0);
    double stopped = std::min(stops * double(cost) * queue, not_running);
    std::sort(by_stops.rbegin(), by_stops.rend());
    for (const auto& [n, region] : by_stops) {
      const double bare = std::max(age - stopped, 0.01 * age);
      if (age <= opts_.max_probe_slowdown * bare) break;
      stop_probing(region, wall, double(probe_stops_[region]) * double(cost) * 1e-9, tid);
      stopped = stops > 0 ? stopped * (1 - double(n) / stops) : 0;
      stops -= double(n);
    }
  }
}

// No new instance of the region opens: its entries (and span STARTs) lose their probes in
// every process, and modules loaded later get none. Open instances close as they would.
void Session::stop_probing(regions::RegionId region, int64_t wall_ns, double cost_s, pid_t thread) {
  Probe p;
  p.region = region;
  for (auto& [tgid, g] : groups_) {
    for (ProbeKind kind : {ProbeKind::RegionEntry, ProbeKind::SpanStart, ProbeKind::SpanResume}) {
      p.kind = kind;
      g->as->remove_probe_everywhere(p);
    }
    g->suspended_starts.erase(region);
  }
  if (opts_.agent) opts_.agent->stop_probing(region);
  const uint64_t stops = probe_stops_[region];
  outcome_.probe_costs[region] = result::ProbeCost{stops, cost_s, double(wall_ns) * 1e-9};
  std::string w = fmt::format(
      "region '{}': probing stopped {:.2f} s into the run: its probes had cost about {:.2f} s ({} ptrace stops{}), "
      "and would make {} more than {:.0f}x slower than without them; its calls after that are not counted "
      "(for every call: a span around the loop that calls it, --backend emul, or --max-probe-slowdown 0)",
      planner_.regions().at(region).name, double(wall_ns) * 1e-9, cost_s, stops,
      opts_.agent ? " and in-process calls at their calibrated cost" : ", estimated from measured stops",
      thread ? fmt::format("thread {}", thread) : std::string("the run"), opts_.max_probe_slowdown);
  std::fprintf(stderr, "roofprof: warning: %s\n", w.c_str());
  outcome_.warnings.push_back(std::move(w));
}

}  // namespace roofprof::tracer
