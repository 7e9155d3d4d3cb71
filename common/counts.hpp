#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace roofprof {

// One perf_event group's slice of a CounterValues: values[first .. first+count) are the group's
// raw (unscaled) counts, and `enabled`/`running` its time_enabled/time_running (summed over the
// threads a process-scope read covers, as perf's global aggregation does).
struct CounterGroupTimes {
  size_t first = 0, count = 0;
  uint64_t enabled = 0, running = 0;
};

// Cumulative counter values of one thread or one process, in a backend's event order.
//  * Values inside a `groups` slice are RAW counts; they become numbers only as deltas
//    (counter_delta), scaled from the deltas of count, time_enabled and time_running.
//  * Values outside every slice (software events replayed by the preload agent, emulation
//    counts) are exact and are simply subtracted. A NaN there means "not counted".
struct CounterValues {
  std::vector<double> values;
  bool multiplexed = false;  // for sources without groups: values are estimates
  std::vector<CounterGroupTimes> groups = {};
};

// What happened between two snapshots: `values` are final numbers (NaN = not counted).
struct CounterDelta {
  std::vector<double> values;
  bool multiplexed = false;   // some group ran for part of the interval: values extrapolated
  bool not_counted = false;   // some group was enabled but never ran: its values are NaN
};

// One group's scaled delta, the way Linux perf computes it (tools/perf/util/evsel.c:
// evsel__compute_deltas, then perf_counts_values__scale): subtract raw count, time_enabled and
// time_running first, then
//  - enabled == 0: the thread did not run; the raw delta (zero) is exact;
//  - running == 0 < enabled: never scheduled, not counted (NaN);
//  - running < enabled: raw * enabled / running, multiplexed;
//  - otherwise the raw delta, exact.
enum class Scaling { exact, multiplexed, not_counted };
Scaling scale_counts(double raw_delta_in, uint64_t enabled, uint64_t running, double& out);

// end - begin over the values both have. Groups are matched by position; a group begin lacks
// counts from zero.
CounterDelta counter_delta(const CounterValues& begin, const CounterValues& end);

}  // namespace roofprof
