#include "counters/group_plan.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.hpp"

namespace roofprof::counters {
namespace {

int limit_for(const std::vector<CounterLimit>& limits, const std::string& pmu) {
  for (const CounterLimit& l : limits)
    if (l.perf_pmu == pmu) return l.count;
  throw UserError(fmt::format("no counter limit for PMU '{}'", pmu.empty() ? "core" : pmu));
}

// One PMU's events, split by role.
struct PmuEvents {
  std::vector<size_t> fixed, w, rest;
  int w_cost = 0;
};

PmuEvents split_pmu(const std::vector<EncodedEvent>& events, const std::string& pmu,
                    const std::set<std::string>& w_ids, int limit) {
  PmuEvents p;
  for (size_t i = 0; i < events.size(); ++i) {
    const EventLine& e = events[i].line;
    if (e.perf_pmu != pmu) continue;
    if (e.fixed) {
      p.fixed.push_back(i);
      continue;
    }
    if (e.cost > limit)
      throw UserError(fmt::format("event {} needs {} counters, the PMU has {}", e.id, e.cost, limit));
    if (w_ids.count(e.id)) {
      p.w.push_back(i);
      p.w_cost += e.cost;
    } else {
      p.rest.push_back(i);
    }
  }
  return p;
}

// Appends `indices` as groups of at most `room` programmable counters.
void fill(std::vector<PlannedGroup>& out, size_t first, const std::string& pmu, const std::vector<size_t>& indices,
          const std::vector<EncodedEvent>& events, int room) {
  for (size_t i : indices) {
    const int cost = events[i].line.cost;
    if (out.size() == first || out.back().programmable + cost > room) out.push_back({pmu, {}, 0, false});
    out.back().members.push_back(i);
    out.back().programmable += cost;
  }
}

void plan_pmu(GroupPlan& plan, const std::vector<EncodedEvent>& events, const std::string& pmu,
              const std::set<std::string>& w_ids, int limit) {
  const PmuEvents p = split_pmu(events, pmu, w_ids, limit);
  const size_t first = plan.groups.size();
  if (!p.w.empty()) plan.w.push_back({pmu, p.w_cost, limit});
  if (!p.w.empty() && p.w_cost <= limit) {
    PlannedGroup pinned{pmu, p.fixed, p.w_cost, true};
    pinned.members.insert(pinned.members.end(), p.w.begin(), p.w.end());
    plan.groups.push_back(std::move(pinned));
    const int room = limit - p.w_cost;
    if (room == 0) {
      plan.left_out.insert(plan.left_out.end(), p.rest.begin(), p.rest.end());
      return;
    }
    for (size_t i : p.rest)
      if (events[i].line.cost > room) throw UserError(fmt::format(
          "event {} needs {} counters; W's pinned group leaves {}", events[i].line.id, events[i].line.cost, room));
    fill(plan.groups, first + 1, pmu, p.rest, events, room);
    return;
  }
  std::vector<size_t> order = p.w;  // W first: its events share as few groups as they can
  order.insert(order.end(), p.rest.begin(), p.rest.end());
  fill(plan.groups, first, pmu, order, events, limit);
  if (!p.fixed.empty()) {
    if (plan.groups.size() == first) plan.groups.push_back({pmu, {}, 0, false});
    auto& m = plan.groups[first].members;
    m.insert(m.begin(), p.fixed.begin(), p.fixed.end());
  }
}

}  // namespace

bool GroupPlan::w_whole() const {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](const WGroupFit& f) { return f.whole(); });
}

const WGroupFit* GroupPlan::w_misfit() const {
  for (const WGroupFit& f : w)
    if (!f.whole()) return &f;
  return nullptr;
}

GroupPlan plan_event_groups(const std::vector<EncodedEvent>& events, const std::vector<CounterLimit>& limits,
                            const std::set<std::string>& w_ids) {
  std::vector<std::string> pmus;  // in order of first appearance
  for (const EncodedEvent& e : events)
    if (std::find(pmus.begin(), pmus.end(), e.line.perf_pmu) == pmus.end()) pmus.push_back(e.line.perf_pmu);
  GroupPlan plan;
  for (const std::string& pmu : pmus) {
    bool programmable = false;
    for (const EncodedEvent& e : events) programmable = programmable || (e.line.perf_pmu == pmu && !e.line.fixed);
    plan_pmu(plan, events, pmu, w_ids, programmable ? limit_for(limits, pmu) : 0);
  }
  return plan;
}

std::vector<PlannedGroup> plan_groups(const std::vector<EncodedEvent>& events,
                                      const std::vector<CounterLimit>& limits) {
  return plan_event_groups(events, limits, {}).groups;
}

std::set<std::string> w_event_ids(const EventSet& set) {
  std::set<std::string> ids;
  if (const Formula* w = set.formula("W"))
    for (const Term& t : w->terms) ids.insert(t.id);
  return ids;
}

}  // namespace roofprof::counters
