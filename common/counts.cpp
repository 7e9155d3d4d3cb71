#include "common/counts.hpp"

#include <algorithm>
#include <limits>

namespace roofprof {

Scaling scale_counts(double raw, uint64_t enabled, uint64_t running, double& out) {
  if (enabled == 0 || running >= enabled) {
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

CounterDelta counter_delta(const CounterValues& begin, const CounterValues& end) {
  CounterDelta d;
  const size_t n = std::min(begin.values.size(), end.values.size());
  d.values.resize(n);
  for (size_t i = 0; i < n; ++i) d.values[i] = end.values[i] - begin.values[i];
  d.multiplexed = begin.multiplexed || end.multiplexed;
  for (size_t g = 0; g < end.groups.size(); ++g) {
    const CounterGroupTimes& e = end.groups[g];
    const CounterGroupTimes none{e.first, e.count, 0, 0};
    const CounterGroupTimes& b = g < begin.groups.size() ? begin.groups[g] : none;
    const uint64_t enabled = e.enabled >= b.enabled ? e.enabled - b.enabled : 0;
    const uint64_t running = e.running >= b.running ? e.running - b.running : 0;
    for (size_t i = e.first; i < std::min(n, e.first + e.count); ++i) {
      const Scaling s = scale_counts(d.values[i], enabled, running, d.values[i]);
      d.multiplexed = d.multiplexed || s == Scaling::multiplexed;
      d.not_counted = d.not_counted || s == Scaling::not_counted;
    }
  }
  return d;
}

}  // namespace roofprof
