// What the probes of a run cost (docs/methodology.md, "What probes cost"): the session acts on
// the probe budget's decisions (probe_budget.hpp).
#include <cstdio>
#include <fmt/format.h>

#include "common/clock.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {

// At the end: a region whose probes cost a large part of the run is reported with the estimate.
// Attached (--pid), every region's cost is kept: its calls can be measured by breakpoints only,
// and `run` says what they add to each call.
void Session::report_probe_costs() {
  const int64_t wall = monotonic_ns() - start_ns_;
  for (const ProbeBudget::Cost& c : budget_.report(wall, opts_.attach_pid != 0)) {
    outcome_.probe_costs[c.region] = overhead::ProbeCost{c.stops, c.estimated_s, std::nullopt};
    if (!c.warn) continue;
    outcome_.warnings.push_back(fmt::format(
        "region '{}': its probes made {} ptrace stops, about {:.2f} s of the run's {:.2f} s at {:.0f} us a stop "
        "(estimated from measured stops): its times include that overhead",
        planner_.regions().at(c.region).name, c.stops, c.estimated_s, double(wall) * 1e-9,
        double(budget_.stop_cost_ns()) * 1e-3));
  }
}

// Every 50 ms of stops (ProbeBudget::check): the probes the budget cuts stop.
void Session::limit_probe_inflation() {
  const int64_t now = monotonic_ns();
  if (!budget_.due(now)) return;
  size_t threads = 0;
  for (const auto& [tgid, g] : groups_)
    if (g->measured) threads += g->tasks.size();
  const auto agent_ns = opts_.agent ? opts_.agent->probe_cost_ns() : std::map<regions::RegionId, double>{};
  for (const ProbeBudget::Cut& cut : budget_.check(now, now - start_ns_, threads, agent_ns)) stop_probing(cut);
}

// No new instance of the region opens: its entries (and span STARTs) lose their probes in
// every process, and modules loaded later get none. Open instances close as they would.
void Session::stop_probing(const ProbeBudget::Cut& cut) {
  Probe p;
  p.region = cut.region;
  for (auto& [tgid, g] : groups_) {
    for (ProbeKind kind : {ProbeKind::RegionEntry, ProbeKind::SpanStart, ProbeKind::SpanResume}) {
      p.kind = kind;
      g->as->remove_probe_everywhere(p);
    }
    g->suspended_starts.erase(cut.region);
  }
  if (opts_.agent) opts_.agent->stop_probing(cut.region);
  const uint64_t stops = budget_.stops(cut.region);
  outcome_.probe_costs[cut.region] = overhead::ProbeCost{stops, cut.cost_s, double(cut.wall_ns) * 1e-9};
  std::string w = fmt::format(
      "region '{}': probing stopped {:.2f} s into the run: its probes had cost about {:.2f} s ({} ptrace stops{}), "
      "and would make {} more than {:.0f}x slower than without them; its calls after that are not counted "
      "(for every call: a span around the loop that calls it, --backend emul, or --max-probe-slowdown 0)",
      planner_.regions().at(cut.region).name, double(cut.wall_ns) * 1e-9, cut.cost_s, stops,
      opts_.agent ? " and in-process calls at their calibrated cost" : ", estimated from measured stops",
      cut.thread ? fmt::format("thread {}", cut.thread) : std::string("the run"), opts_.max_probe_slowdown);
  std::fprintf(stderr, "roofprof: warning: %s\n", w.c_str());
  outcome_.warnings.push_back(std::move(w));
}

}  // namespace roofprof::tracer
