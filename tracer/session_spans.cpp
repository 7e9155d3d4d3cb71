// Spans in loops. While a span is open on a thread, reaching its START again is no boundary
// (regions::Tracker). In a process with one thread, no other thread can open the span there,
// so the START breakpoints (and an inlined copy's re-entries) are lifted while the span is open
// and put back at STOP, or when a new thread appears: a START inside a loop stops the program
// once, not once per iteration.
// Not with --follow-fork (a forked child's copy of memory would lack the lifted breakpoints).
#include <algorithm>

#include "tracer/session.hpp"

namespace roofprof::tracer {

void Session::suspend_span_starts(ThreadGroup& g, regions::RegionId region) {
  if (opts_.follow_fork || g.tasks.size() != 1) return;
  Probe p;
  p.region = region;
  for (const auto& site : planner_.regions().at(region).sites) {
    if (site.role != probes::SiteRole::SpanStart && site.role != probes::SiteRole::SpanResume) continue;
    p.kind = kind_of(site.role);
    for (const auto& [key, m] : g.modules) {
      if (m.path != site.module) continue;
      TraceeAddr at(m.bias + site.address);
      const Breakpoint* bp = g.as->find(at);
      if (!bp || std::find(bp->probes.begin(), bp->probes.end(), p) == bp->probes.end()) continue;
      g.as->remove_probe(at, p);
      g.suspended_starts[region].emplace_back(at, p.kind);
    }
  }
}

void Session::restore_span_starts(Task& t, std::optional<regions::RegionId> only) {
  ThreadGroup& g = *t.group;
  auto alloc = [&](TraceeAddr near, size_t size) { return map_scratch(t, near, size); };
  for (auto it = g.suspended_starts.begin(); it != g.suspended_starts.end();) {
    if (only && it->first != *only) {
      ++it;
      continue;
    }
    Probe p;
    p.region = it->first;
    for (const auto& [at, kind] : it->second) {
      p.kind = kind;
      g.as->add_probe(at, p, alloc);
    }
    it = g.suspended_starts.erase(it);
  }
}

}  // namespace roofprof::tracer
