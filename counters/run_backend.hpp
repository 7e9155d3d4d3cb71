#pragma once
// What `roofprof run` counts with in the native run, and how hardware counts become W and Q.
//  * every backend: the perf software events (task-clock, page-faults, ...) where perf works;
//  * perf: plus the thread-scope hardware events of this CPU's event set (counters/events/),
//    whose formulas give W (flops) and Q (bytes, DRAM level; per-core approximations labelled),
//    and its memory-controller (uncore) events, system-wide, where memory_source() allows.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counters/backend.hpp"
#include "counters/backend_choice.hpp"
#include "counters/capabilities.hpp"
#include "counters/event_encoding.hpp"
#include "counters/event_set.hpp"
#include "counters/group_plan.hpp"
#include "counters/pfm_library.hpp"
#include "counters/w_placement.hpp"

namespace roofprof::counters {

struct RunCounting {
  std::unique_ptr<Backend> backend;
  const EventSet* event_set = nullptr;  // set when hardware events are counted; points into `catalog`
  Catalog catalog;                      // keeps a user event set alive as long as the counting
  bool user_level = false;              // software events without their kernel side (unprivileged)
  // Whether the opened groups count W whole: its events in the plan's pinned group on every PMU
  // (group_plan.hpp), never rotated out, so W is exact; otherwise why W is an estimate.
  WPlacement w;
  std::vector<std::string> notes;       // for the user and the result's warnings: user-level counting,
                                        // events dropped and why, the NMI watchdog, W's group
};

// The set's per-thread lines this machine can count, encoded; every line that cannot be
// (libpfm4 cannot encode it and it has no raw fallback, or its sysfs PMU is absent) is left out
// with a note: formulas that need it give null, never an abort.
struct HardwareEvents {
  std::vector<EncodedEvent> events;
  std::vector<std::string> notes;
};
HardwareEvents encode_run_events(const EventSet& set, const std::string& core_pmu, const PfmLibrary& pfm);

// The set's programmable counters per PMU, less the one the NMI watchdog holds when it is on.
std::vector<CounterLimit> usable_counters(const EventSet& set, bool nmi_watchdog);

// What the group plan means for W and the other events, for the run's notes: W's events that do
// not fit whole (an estimate, and how to make it exact), events left out beside W's pinned group.
std::vector<std::string> group_plan_notes(const GroupPlan& plan, const std::vector<EncodedEvent>& events,
                                          bool nmi_watchdog);

// Throws UserError when requested software events are unknown or perf cannot open them.
// `software_events` {"none"}: no software counter at all (time only, the cheapest boundary).
// With hardware events, the memory controllers' when memory_source(caps, process_scope) says
// so (system-wide events of the backend), else a note on why Q is the per-core approximation.
RunCounting make_run_counting(BackendKind kind, const Capabilities& caps, const std::vector<std::string>& software_events,
                              bool process_scope);

// W and Q of a region from its event totals (id -> value, as the backend names them).
struct Traffic {
  std::optional<double> read, write;  // bytes
  bool approximate = false;           // per-core approximation, not memory-controller counts
};
struct Derived {
  std::optional<double> flops;                   // null: the set has no W or an event is missing/not counted
  bool flops_not_counted = false;                // null because a W event's group never ran
  std::map<std::string, double> flops_by_class;  // W's terms: "dp_256" -> weight * count
  // By memory level ("DRAM", "L3"): memory-controller counts (exact, DRAM) when the set's
  // `formula Q.read/Q.write` can be evaluated, else the `approx Q[.LEVEL].read/write` formulas
  // at the level they measure (Intel L2_LINES_IN/OUT: L2<->L3 traffic, level "L3").
  std::map<std::string, Traffic> bytes;
  bool bytes_not_counted = false;
};
Derived derive(const EventSet& set, const std::map<std::string, double>& totals);

// "Q.read" -> ("DRAM", "read"); "Q.L3.write" -> ("L3", "write"); otherwise nullopt.
std::optional<std::pair<std::string, std::string>> traffic_formula(const std::string& name);

}  // namespace roofprof::counters
