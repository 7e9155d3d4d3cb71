#include "common/counts.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace roofprof {

Scaling scale_counts(double raw, uint64_t enabled, uint64_t running, double& out, bool pinned) {
  if (enabled == 0 || running >= enabled || pinned) {
    out = raw;
    return Scaling::exact;
  }
  if (running == 0) {
    out = std::numeric_limits<double>::quiet_NaN();
    return Scaling::not_counted;
  }
  out = raw * static_cast<double>(enabled) / static_cast<double>(running);  // perf: val * ena / run
  return Scaling::multiplexed;
}

void add_group_times(std::vector<GroupTime>& into, const std::vector<GroupTime>& t) {
  if (into.size() < t.size()) into.resize(t.size());
  for (size_t g = 0; g < t.size(); ++g) {
    into[g].first = t[g].first;
    into[g].enabled += t[g].enabled;
    into[g].running += t[g].running;
  }
}

namespace {

// Scales values[first..first+count) of each group of `end` by its time deltas against `begin`'s
// group at the same position (only groups from value `from` on); with `add_to`, adds the scaled
// deltas there too.
void scale_groups(const std::vector<CounterGroupTimes>& begin, const std::vector<CounterGroupTimes>& end,
                  std::vector<double>& values, CounterDelta& d, std::vector<double>* add_to, size_t from = 0) {
  for (size_t g = 0; g < end.size(); ++g) {
    const CounterGroupTimes& e = end[g];
    if (e.first < from) continue;
    const CounterGroupTimes none{e.first, e.count, 0, 0, e.pinned};
    const CounterGroupTimes& b = g < begin.size() ? begin[g] : none;
    const uint64_t enabled = e.enabled >= b.enabled ? e.enabled - b.enabled : 0;
    const uint64_t running = e.running >= b.running ? e.running - b.running : 0;
    if (d.group_times.size() <= g) d.group_times.resize(g + 1);
    d.group_times[g].first = e.first;
    d.group_times[g].enabled += enabled;
    d.group_times[g].running += running;
    for (size_t i = e.first; i < std::min(values.size(), e.first + e.count); ++i) {
      const Scaling s = scale_counts(values[i], enabled, running, values[i], e.pinned);
      d.multiplexed = d.multiplexed || s == Scaling::multiplexed;
      d.not_counted = d.not_counted || s == Scaling::not_counted;
      if (add_to && i < add_to->size()) (*add_to)[i] += values[i];
    }
  }
}

// Thread by thread (perf's per-thread scaling), then summed into the grouped values of `d`.
// Groups past the threads' values (system-wide events appended to a process read) are scaled as
// they are.
void per_thread_delta(const CounterValues& begin, const CounterValues& end, CounterDelta& d) {
  size_t per_thread = 0;
  for (const ThreadCounts& t : end.threads) per_thread = std::max(per_thread, t.values.size());
  for (const CounterGroupTimes& g : end.groups)
    if (g.first < per_thread)
      for (size_t i = g.first; i < std::min(d.values.size(), g.first + g.count); ++i) d.values[i] = 0;
  scale_groups(begin.groups, end.groups, d.values, d, nullptr, per_thread);
  std::map<uint64_t, const ThreadCounts*> before;
  for (const ThreadCounts& t : begin.threads) before[t.serial] = &t;
  for (const ThreadCounts& t : end.threads) {
    auto it = before.find(t.serial);
    const ThreadCounts* b = it == before.end() ? nullptr : it->second;
    std::vector<double> delta = t.values;
    for (size_t i = 0; i < delta.size(); ++i)
      delta[i] -= b && i < b->values.size() ? b->values[i] : 0.0;
    scale_groups(b ? b->groups : std::vector<CounterGroupTimes>{}, t.groups, delta, d, &d.values);
  }
  // A part of begin that end lacks exited exact all along and was pooled into end's part 0,
  // which holds its whole count: what it had at begin is not the interval's.
  std::set<uint64_t> after;
  for (const ThreadCounts& t : end.threads) after.insert(t.serial);
  for (const ThreadCounts& b : begin.threads)
    if (!after.count(b.serial))
      for (const CounterGroupTimes& g : b.groups)
        for (size_t i = g.first; i < std::min({d.values.size(), b.values.size(), g.first + g.count}); ++i)
          d.values[i] -= b.values[i];
}

}  // namespace

CounterDelta counter_delta(const CounterValues& begin, const CounterValues& end) {
  CounterDelta d;
  const size_t n = std::min(begin.values.size(), end.values.size());
  d.values.resize(n);
  for (size_t i = 0; i < n; ++i) d.values[i] = end.values[i] - begin.values[i];
  d.multiplexed = begin.multiplexed || end.multiplexed;
  if (!end.threads.empty())
    per_thread_delta(begin, end, d);
  else
    scale_groups(begin.groups, end.groups, d.values, d, nullptr);
  return d;
}

}  // namespace roofprof
