#pragma once
// Whether the kernel can count W whole: every event of the set's W formula in a pinned group
// (perf_event_attr.pinned: scheduled before every flexible group, never rotated out; one that
// cannot go on is in error state, read as "not counted"), the pinned groups of each PMU together
// within its usable counters (the NMI watchdog's taken). Then W is exact: on a hybrid, each core
// type's pinned group counts all the work done on that core type, and time on the other core
// type is not multiplexing. Otherwise the kernel rotates W's groups at the tick and W is an
// estimate (perf's scaling) or, for a short region, not counted.
#include <string>
#include <vector>

#include "counters/event_encoding.hpp"
#include "counters/event_set.hpp"
#include "counters/group_plan.hpp"

namespace roofprof::counters {

struct WPlacement {
  bool has_w = false;  // the set has a W formula and at least one of its events is counted
  bool exact = false;  // whole and pinned
  std::string why;     // one clause: "its events are in pinned groups..." / "its events are in 2 groups..."
};

WPlacement w_placement(const EventSet& set, const std::vector<EncodedEvent>& events,
                       const std::vector<PlannedGroup>& groups, const std::vector<CounterLimit>& limits);

}  // namespace roofprof::counters
