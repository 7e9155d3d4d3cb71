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

}  // namespace

std::vector<PlannedGroup> plan_groups(const std::vector<EncodedEvent>& events,
                                      const std::vector<CounterLimit>& limits) {
  // PMUs in order of first appearance.
  std::vector<std::string> pmus;
  for (const EncodedEvent& e : events)
    if (std::find(pmus.begin(), pmus.end(), e.line.perf_pmu) == pmus.end())
      pmus.push_back(e.line.perf_pmu);

  std::vector<PlannedGroup> out;
  for (const std::string& pmu : pmus) {
    const size_t first = out.size();
    std::vector<size_t> fixed;
    for (size_t i = 0; i < events.size(); ++i) {
      const EncodedEvent& e = events[i];
      if (e.line.perf_pmu != pmu) continue;
      if (e.line.fixed) {
        fixed.push_back(i);
        continue;
      }
      const int limit = limit_for(limits, pmu);
      if (e.line.cost > limit)
        throw UserError(fmt::format("event {} needs {} counters, the PMU has {}", e.line.id,
                                    e.line.cost, limit));
      if (out.size() == first || out.back().programmable + e.line.cost > limit)
        out.push_back({pmu, {}, 0});
      out.back().members.push_back(i);
      out.back().programmable += e.line.cost;
    }
    if (!fixed.empty()) {
      if (out.size() == first) out.push_back({pmu, {}, 0});
      auto& m = out[first].members;
      m.insert(m.begin(), fixed.begin(), fixed.end());
    }
  }
  return out;
}

}  // namespace roofprof::counters
