// The probe budget's arithmetic (probe_budget.hpp).
#include "tracer/probe_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>

#include "common/clock.hpp"

namespace roofprof::tracer {
namespace {
constexpr size_t kSamples = 64;                // recent step round trips kept
constexpr int64_t kMinWallNs = 200'000'000;    // shorter runs (threads): no verdict
constexpr int64_t kCheckEveryNs = 50'000'000;  // how often the inflation is looked at
}  // namespace

// A thread stopped by ptrace does not run, nor does a sleeping one, and the kernel's work of
// each stop (the trap, the signal, the resume) is the probes', not the program's.
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

ProbeBudget::ProbeBudget(double max_slowdown, RunTime run_time)
    : max_slowdown_(max_slowdown), run_time_(std::move(run_time)) {}

ProbeBudget::Handling::Handling(ProbeBudget& b) : b_(b), t0_(monotonic_ns()), excluded0_(b.excluded_ns_) {}

ProbeBudget::Handling::~Handling() { b_.note_handling(monotonic_ns() - t0_ - (b_.excluded_ns_ - excluded0_)); }

void ProbeBudget::note_step(int64_t ns) {
  if (ns <= 0) return;
  if (step_ns_.size() < kSamples) step_ns_.push_back(ns);
  else step_ns_[step_next_++ % kSamples] = ns;
}

void ProbeBudget::note_handling(int64_t ns) {
  handling_ns_ += ns;
  ++handled_stops_;
}

int64_t ProbeBudget::stop_cost_ns() const {
  if (step_ns_.empty()) return 0;
  std::vector<int64_t> v = step_ns_;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2] + (handled_stops_ ? handling_ns_ / int64_t(handled_stops_) : 0);
}

void ProbeBudget::count_stops(pid_t tgid, pid_t tid, regions::RegionId region, uint64_t stops, int64_t now) {
  stops_[region] += stops;
  ThreadStops& ts = threads_[tid];
  if (ts.since_ns == 0) ts = ThreadStops{tgid, now, std::max<int64_t>(run_time_(tgid, tid), 0), {}};
  ts.by_region[region] += stops;
}

uint64_t ProbeBudget::stops(regions::RegionId region) const {
  auto it = stops_.find(region);
  return it == stops_.end() ? 0 : it->second;
}

std::vector<ProbeBudget::Cost> ProbeBudget::report(int64_t wall, bool attached) const {
  std::vector<Cost> out;
  const int64_t cost = stop_cost_ns();
  if ((wall < kMinWallNs && !attached) || cost == 0) return out;
  for (const auto& [region, stops] : stops_) {
    if (stopped(region)) continue;  // said when it stopped
    // Stops of several threads overlap in part: the estimate is at most the wall time.
    const double est = std::min(double(stops) * double(cost), double(wall));
    // The estimate is low (a step, not a trap): a quarter is about half.
    const bool large = est >= 0.25 * double(wall);
    if (attached || large) out.push_back(Cost{region, stops, est * 1e-9, large && !attached});
  }
  return out;
}

bool ProbeBudget::due(int64_t now) {
  if (now < next_check_ns_ || max_slowdown_ <= 0) return false;
  next_check_ns_ = now + kCheckEveryNs;
  return true;
}

void ProbeBudget::cut(std::vector<Cut>& out, regions::RegionId region, int64_t wall, double cost_s, pid_t thread) {
  stopped_.insert(region);
  out.push_back(Cut{region, wall, cost_s, thread});
}

// The run so far took `wall`; its probes' stops took about `total` of it, so without them it
// would have taken wall - total (stops of several threads overlap: their cost is spread over
// the live threads). When the probes still running would make it more than max_slowdown times
// slower, the costliest of them stop until the rest would not; their sunk cost stays in the run.
std::vector<ProbeBudget::Cut> ProbeBudget::check(int64_t now, int64_t wall, size_t threads,
                                                 const std::map<regions::RegionId, double>& agent_ns) {
  std::vector<Cut> out;
  const int64_t cost = stop_cost_ns();
  if (wall < kMinWallNs || (cost == 0 && agent_ns.empty())) return out;
  const double spread = double(std::max<size_t>(threads, 1));
  // Every mechanism's cost, per region: breakpoints' stops, and the in-process agent's calls.
  std::map<regions::RegionId, double> region_cost = agent_ns;
  for (const auto& [region, stops] : stops_) region_cost[region] += double(stops) * double(cost);
  double total = 0, active = 0;
  std::vector<std::pair<double, regions::RegionId>> by_cost;
  for (const auto& [region, ns] : region_cost) {
    const double c = ns / spread;
    total += c;
    if (stopped(region)) continue;
    active += c;
    by_cost.emplace_back(c, region);
  }
  const double bare = std::max(double(wall) - total, 0.01 * double(wall));
  std::sort(by_cost.rbegin(), by_cost.rend());
  for (const auto& [c, region] : by_cost) {
    if (active <= (max_slowdown_ - 1) * bare) break;
    cut(out, region, wall, c * spread * 1e-9, 0);
    active -= c;
  }
  if (cost > 0) check_threads(out, now, cost, wall);
  return out;
}

// Per thread (a few busy threads slowed 100x weigh little in the run's average): a thread
// stopped by its probes does not run; several threads' stops queue for the one tracer, so each
// stop of a thread waits for at most one stop of every other thread that stops too. A thread's
// stopped time is then at most its stops x the stop cost x the threads that stop, and at most the
// time it did not run its code (its age less its user CPU time: sleeping and waiting for a CPU
// are not the probes', but they are bounded by the first term; a thread resumed from a stop
// waits for a CPU again, which is the probes'). When that time would make the thread more than
// max_slowdown times slower than without it, its costliest regions stop being probed.
void ProbeBudget::check_threads(std::vector<Cut>& out, int64_t now, int64_t cost, int64_t wall) {
  const double queue = double(std::max<size_t>(threads_.size(), 1));
  for (auto it = threads_.begin(); it != threads_.end();) {
    const pid_t tid = it->first;
    ThreadStops& ts = it->second;
    const int64_t run = run_time_(ts.tgid, tid);
    if (run < 0) {
      it = threads_.erase(it);  // ended: its stops stay in the run's count
      continue;
    }
    ++it;
    const double age = double(now - ts.since_ns);
    if (age < double(kMinWallNs)) continue;
    double stops = 0;
    std::vector<std::pair<uint64_t, regions::RegionId>> by_stops;
    for (const auto& [region, n] : ts.by_region) {
      if (stopped(region)) continue;
      stops += double(n);
      by_stops.emplace_back(n, region);
    }
    // Since its first probe stop: the CPU time counts from the thread's start.
    const double not_running = std::max(age - double(run - ts.run0_ns), 0.0);
    double stopped_ns = std::min(stops * double(cost) * queue, not_running);
    std::sort(by_stops.rbegin(), by_stops.rend());
    for (const auto& [n, region] : by_stops) {
      const double bare = std::max(age - stopped_ns, 0.01 * age);
      if (age <= max_slowdown_ * bare) break;
      cut(out, region, wall, double(stops_[region]) * double(cost) * 1e-9, tid);
      stopped_ns = stops > 0 ? stopped_ns * (1 - double(n) / stops) : 0;
      stops -= double(n);
    }
  }
}

}  // namespace roofprof::tracer
