#pragma once
// Splitting per-thread events into perf_event groups that fit the counters of one hardware
// thread. Groups never mix PMUs (hybrid cpu_core / cpu_atom / cpu_lowpower).
//
// W's events (the ids of the set's exact W formula) go first: on each PMU, when their
// programmable cost fits the PMU's usable counters (the NMI watchdog's already taken off), they
// make one *pinned* group with the PMU's fixed-counter events, which the kernel schedules
// before any other and never rotates out, so W is exact. The other events then fill flexible
// groups sized to the counters the pinned group leaves; when it leaves none they cannot be
// counted at all and are left out (GroupPlan::left_out). When W's events do not fit (Skylake-SP
// with 4 counters per hardware thread), nothing is pinned: groups fill in order as before, the
// kernel multiplexes them and W is an estimate (GroupPlan::w_whole() is false).
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "counters/event_encoding.hpp"

namespace roofprof::counters {

struct PlannedGroup {
  std::string perf_pmu;         // "" = core PMU
  std::vector<size_t> members;  // indices into the events given to plan_groups, leader first
  int programmable = 0;         // programmable counters used
  bool pinned = false;          // perf_event_attr.pinned on the leader: W's group (counters/w_placement.hpp)
};

// W's events on one PMU and whether they fit.
struct WGroupFit {
  std::string perf_pmu;
  int needed = 0;   // programmable counters W's events use on this PMU
  int usable = 0;   // the PMU's counters as given (watchdog's already taken off)
  bool whole() const { return needed <= usable; }
};

struct GroupPlan {
  std::vector<PlannedGroup> groups;
  std::vector<size_t> left_out;  // events no counter is left for beside a pinned group
  std::vector<WGroupFit> w;      // one per PMU with W events, in PMU order
  // W's events exist and sit, on every PMU, in one pinned group: no rotation, W exact.
  bool w_whole() const;
  // The first PMU whose W events do not fit; nullptr when W is whole or has no events.
  const WGroupFit* w_misfit() const;
};

// `events` are per-thread events only; `limits` the usable counters per PMU; `w_ids` the ids of
// W's terms (empty: no pinning, plain fill in order). Throws UserError when a PMU has no limit.
GroupPlan plan_event_groups(const std::vector<EncodedEvent>& events, const std::vector<CounterLimit>& limits,
                            const std::set<std::string>& w_ids);

// The groups alone, without pinning (plan_event_groups with no W ids).
std::vector<PlannedGroup> plan_groups(const std::vector<EncodedEvent>& events,
                                      const std::vector<CounterLimit>& limits);

// The ids of the set's exact W formula's terms; empty when the set has no W.
std::set<std::string> w_event_ids(const EventSet& set);

}  // namespace roofprof::counters
