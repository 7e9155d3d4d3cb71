#pragma once
// What `roofprof run` counts with in the native run, and how hardware counts become W and Q.
//  * every backend: the perf software events (task-clock, page-faults, ...) where perf works;
//  * perf: plus the thread-scope hardware events of this CPU's event set (counters/events/),
//    whose formulas give W (flops) and Q (bytes, DRAM level; per-core approximations labelled).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counters/backend.hpp"
#include "counters/backend_choice.hpp"
#include "counters/capabilities.hpp"
#include "counters/event_set.hpp"

namespace roofprof::counters {

struct RunCounting {
  std::unique_ptr<Backend> backend;
  const EventSet* event_set = nullptr;  // set when hardware events are counted
  bool user_level = false;              // software events without their kernel side (unprivileged)
  std::vector<std::string> notes;       // said to the user and kept in the result's warnings
};

// Throws UserError when requested software events are unknown or perf cannot open them.
RunCounting make_run_counting(BackendKind kind, const Capabilities& caps, const std::vector<std::string>& software_events);

// W and Q of a region from its event totals (id -> value, as the backend names them).
struct Derived {
  std::optional<double> flops;                 // null: the set has no W or an event was not counted
  std::map<std::string, double> flops_by_class;  // W's terms: "dp_256" -> weight * count
  std::optional<double> read_bytes, write_bytes; // DRAM
  bool bytes_approximate = false;              // per-core approximation (not memory-controller counts)
};
Derived derive(const EventSet& set, const std::map<std::string, double>& totals);

}  // namespace roofprof::counters
