#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace roofprof {

// One perf_event group's slice of a CounterValues: values[first .. first+count) are the group's
// raw (unscaled) counts, and `enabled`/`running` its time_enabled/time_running (summed over the
// threads a process-scope read covers, as perf's global aggregation does).
// `pinned`: the group was opened pinned (counters/w_placement.hpp): the kernel never rotates it out,
// so on a hybrid its running < enabled is time on the other core type, not multiplexing, and its
// raw counts are exact.
struct CounterGroupTimes {
  size_t first = 0, count = 0;
  uint64_t enabled = 0, running = 0;
  bool pinned = false;
};

// One thread's part of a process-scope read: its raw counts and its own groups' times, under a
// number that is never reused within the process (a tid can be), so that deltas are scaled
// thread by thread and then summed, as perf's per-thread counting does.
struct ThreadCounts {
  uint64_t serial = 0;
  std::vector<double> values;
  std::vector<CounterGroupTimes> groups;
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
  // Process-scope reads of per-thread counters: every thread's part (live and exited). When
  // present, counter_delta scales each thread's group deltas by that thread's own times.
  std::vector<ThreadCounts> threads = {};
};

// One group's time deltas summed over the threads a delta covers, and where its values start. On
// a hybrid, running / enabled of a group that holds its counters whenever it can (pinned, or the
// only group of its PMU) is the share of its threads' time on its core type.
struct GroupTime {
  size_t first = 0;
  uint64_t enabled = 0, running = 0;
};
void add_group_times(std::vector<GroupTime>& into, const std::vector<GroupTime>& t);

// What happened between two snapshots: `values` are final numbers (NaN = not counted).
struct CounterDelta {
  std::vector<double> values;
  bool multiplexed = false;   // some group ran for part of the interval: values extrapolated
  bool not_counted = false;   // some group was enabled but never ran: its values are NaN
  std::vector<GroupTime> group_times = {};  // by group position (CounterValues::groups)
};

// One group's scaled delta, the way Linux perf computes it (tools/perf/util/evsel.c:
// evsel__compute_deltas, then perf_counts_values__scale): subtract raw count, time_enabled and
// time_running first, then
//  - enabled == 0, or a pinned group: the raw delta is exact (a pinned group that is not running
//    is on the other core type of a hybrid, where its events do not occur);
//  - running == 0 < enabled: never scheduled, not counted (NaN);
//  - running < enabled: raw * enabled / running, multiplexed;
//  - otherwise the raw delta, exact.
enum class Scaling { exact, multiplexed, not_counted };
Scaling scale_counts(double raw_delta_in, uint64_t enabled, uint64_t running, double& out, bool pinned = false);

// end - begin over the values both have. Groups are matched by position; a group begin lacks
// counts from zero. With thread parts (end.threads), the grouped values are the sum over threads
// of each thread's scaled delta (a part begin lacks counts from zero; a part end lacks was pooled
// into end's part 0, exact all along, and its begin values are subtracted as they are): one
// thread whose group was enabled but never ran makes that group's process values not counted.
CounterDelta counter_delta(const CounterValues& begin, const CounterValues& end);

}  // namespace roofprof
