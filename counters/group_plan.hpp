#pragma once
// Splitting per-thread events into perf_event groups that fit the counters of one hardware
// thread. Groups never mix PMUs (hybrid cpu_core / cpu_atom). Fixed-counter events ride in the
// first group of their PMU; programmable events fill groups in file order. More than one group
// per PMU means the kernel multiplexes them (detected and scaled at read time).
#include <cstddef>
#include <string>
#include <vector>

#include "counters/event_encoding.hpp"

namespace roofprof::counters {

struct PlannedGroup {
  std::string perf_pmu;         // "" = core PMU
  std::vector<size_t> members;  // indices into the events given to plan_groups, leader first
  int programmable = 0;         // programmable counters used
  bool pinned = false;          // opened with perf_event_attr.pinned (counters/w_placement.hpp)
};

// `events` are per-thread events only. Throws UserError when a PMU has no declared limit.
std::vector<PlannedGroup> plan_groups(const std::vector<EncodedEvent>& events,
                                      const std::vector<CounterLimit>& limits);

}  // namespace roofprof::counters
