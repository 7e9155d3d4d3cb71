#include "counters/w_placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace roofprof::counters {

namespace {

const EventLine* line_of(const EventSet& set, const std::string& id) {
  for (const EventLine& l : set.events)
    if (l.id == id) return &l;
  return nullptr;
}

// The first PMU whose W events need more counters than it has usable (the group plan's reason for
// not pinning them: GroupPlan::w_misfit), said as one clause; nullopt when W's events fit.
std::optional<std::string> w_misfit(const std::set<std::string>& ids, const std::vector<EncodedEvent>& events,
                                    const std::vector<CounterLimit>& limits) {
  std::vector<std::pair<std::string, int>> needed;  // PMU -> programmable counters, in order
  for (const EncodedEvent& e : events) {
    if (!ids.count(e.line.id) || e.line.fixed) continue;
    auto it = std::find_if(needed.begin(), needed.end(), [&](const auto& n) { return n.first == e.line.perf_pmu; });
    if (it == needed.end()) it = needed.insert(needed.end(), {e.line.perf_pmu, 0});
    it->second += e.line.cost;
  }
  for (const auto& [pmu, n] : needed)
    for (const CounterLimit& l : limits)
      if (l.perf_pmu == pmu && n > l.count)
        return fmt::format("W's events need {} counters on the {} PMU and {} are usable, so the kernel rotates "
                           "them at the tick (not pinned)", n, pmu.empty() ? "core" : pmu, l.count);
  return std::nullopt;
}

}  // namespace

std::optional<UncountedCoreTime> uncounted_core_time(const EventSet& set, const std::vector<std::string>& names,
                                                     const std::vector<GroupTime>& times) {
  const Formula* w = set.formula("W");
  if (!w) return std::nullopt;
  std::set<std::string> w_pmus;
  for (const Term& t : w->terms)
    if (const EventLine* l = line_of(set, t.id)) w_pmus.insert(l->perf_pmu);
  std::optional<UncountedCoreTime> out;
  for (const GroupTime& g : times) {
    if (g.first >= names.size() || g.enabled == 0 || g.running == 0) continue;
    const EventLine* l = line_of(set, names[g.first]);
    if (!l || l->perf_pmu.empty() || w_pmus.count(l->perf_pmu)) continue;
    const double share = static_cast<double>(g.running) / static_cast<double>(g.enabled);
    if (!out || share > out->share) out = UncountedCoreTime{l->perf_pmu, std::min(1.0, share)};
  }
  return out;
}

WPlacement w_placement(const EventSet& set, const std::vector<EncodedEvent>& events,
                       const std::vector<PlannedGroup>& groups, const std::vector<CounterLimit>& limits) {
  WPlacement p;
  const Formula* w = set.formula("W");
  if (!w) return p;
  std::set<std::string> ids;
  for (const Term& t : w->terms) ids.insert(t.id);
  std::set<size_t> w_groups;
  bool all_pinned = true;
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t i : groups[g].members)
      if (ids.count(events[i].line.id)) {
        w_groups.insert(g);
        all_pinned = all_pinned && groups[g].pinned;
      }
  p.has_w = !w_groups.empty();
  if (!p.has_w) return p;
  std::map<std::string, int> pinned_counters;
  for (const PlannedGroup& g : groups)
    if (g.pinned) pinned_counters[g.perf_pmu] += g.programmable;
  bool fit = true;
  for (const auto& [pmu, n] : pinned_counters)
    for (const CounterLimit& l : limits)
      if (l.perf_pmu == pmu && n > l.count) fit = false;
  p.exact = all_pinned && fit;
  if (p.exact)
    p.why = "W's events are in pinned groups that fit the counters left beside the NMI watchdog's";
  else if (const auto misfit = w_misfit(ids, events, limits))
    p.why = *misfit;
  else if (!all_pinned)
    p.why = fmt::format("W's events are in {} group{} the kernel may rotate out at the tick (not pinned)",
                        w_groups.size(), w_groups.size() == 1 ? "" : "s");
  else
    p.why = "W's pinned groups need more counters than the PMU has beside the NMI watchdog's";
  return p;
}

}  // namespace roofprof::counters
