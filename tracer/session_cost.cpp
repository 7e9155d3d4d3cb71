// What the probes of a run cost (docs/methodology.md, "What probes cost").
#include <algorithm>
#include <csignal>
#include <fmt/format.h>

#include "common/clock.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {
namespace {
constexpr size_t kSamples = 64;               // recent step round trips kept
constexpr int64_t kMinWallNs = 200'000'000;  // shorter runs: no verdict
}  // namespace

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

// At the exec stop of the program roofprof started: 16 single steps of its first instructions
// (the dynamic linker's, which run next anyway), each a ptrace round trip with one instruction
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

void Session::count_probe_stops(regions::RegionId region, uint64_t stops) { probe_stops_[region] += stops; }

// At the end: a region whose probes cost a large part of the run is reported with the estimate.
void Session::report_probe_costs() {
  const int64_t wall = monotonic_ns() - start_ns_;
  const int64_t cost = stop_cost_ns();
  if (wall < kMinWallNs || cost == 0) return;
  for (const auto& [region, stops] : probe_stops_) {
    // Stops of several threads overlap in part: the estimate is at most the wall time.
    const double est = std::min(double(stops) * double(cost), double(wall));
    if (est < 0.25 * double(wall)) continue;  // the estimate is low (a step, not a trap): a quarter is about half
    outcome_.warnings.push_back(fmt::format(
        "region '{}': its probes made {} ptrace stops, about {:.2f} s of the run's {:.2f} s at {:.0f} us a stop "
        "(estimated from measured stops): its times include that overhead",
        planner_.regions().at(region).name, stops, est * 1e-9, double(wall) * 1e-9, double(cost) * 1e-3));
  }
}

}  // namespace roofprof::tracer
