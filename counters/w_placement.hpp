#pragma once
// Whether the kernel can count W whole: every event of the set's W formula in a pinned group
// (perf_event_attr.pinned: scheduled before every flexible group, never rotated out; one that
// cannot go on is in error state, read as "not counted"), the pinned groups of each PMU together
// within its usable counters (the NMI watchdog's taken). Then W is exact: on a hybrid, each core
// type's pinned group counts all the work done on that core type, and time on the other core
// type is not multiplexing. Otherwise the kernel rotates W's groups at the tick and W is an
// estimate (perf's scaling) or, for a short region, not counted.
#include <optional>
#include <string>
#include <vector>

#include "common/counts.hpp"

#include "counters/event_encoding.hpp"
#include "counters/event_set.hpp"
#include "counters/group_plan.hpp"

namespace roofprof::counters {

struct WPlacement {
  bool has_w = false;  // the set has a W formula and at least one of its events is counted
  bool exact = false;  // whole and pinned
  // One clause: "W's events are in pinned groups that fit ..." when exact; otherwise the group
  // plan's reason ("W's events need 5 counters on the core PMU and 3 are usable, ...") or, for
  // groups that fit but are not pinned, "W's events are in 2 groups the kernel may rotate out ...".
  std::string why;
};

// On a hybrid whose W counts some core types only (Alder Lake: P-cores): the largest share of the
// region's time its threads spent on a core type whose FP operations W does not count, from that
// core type's groups (running / enabled: each runs only while its thread is on its core type);
// nullopt when there was none. `names`: the backend's events, in value order.
struct UncountedCoreTime {
  std::string pmu;  // "cpu_atom"
  double share = 0;
};
std::optional<UncountedCoreTime> uncounted_core_time(const EventSet& set, const std::vector<std::string>& names,
                                                     const std::vector<GroupTime>& times);

WPlacement w_placement(const EventSet& set, const std::vector<EncodedEvent>& events,
                       const std::vector<PlannedGroup>& groups, const std::vector<CounterLimit>& limits);

}  // namespace roofprof::counters
