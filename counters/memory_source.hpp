#pragma once
// Where a hardware-counted run's Q (bytes) comes from: the memory controllers (the set's uncore
// lines, counted system-wide per socket, so other processes' traffic is included) or the set's
// per-core approximation at the level it measures. One decision for `roofprof run`
// (make_run_counting) and `roofprof doctor`.
#include <string>

#include "counters/capabilities.hpp"

namespace roofprof::counters {

struct MemorySource {
  bool memory_controller = false;  // the run opens the set's uncore events
  std::string why_not;             // otherwise why not: one clause, "no ... PMU ..." etc.
};

// From probed capabilities (the set's uncore PMUs in sysfs, uncore_allowed(), whether they
// opened) and the run's scope: a thread-scope run cannot use system-wide counts.
MemorySource memory_source(const Capabilities& caps, bool process_scope);

// The source when the memory-controller events do not open: `error` says why.
MemorySource memory_controllers_refused(const std::string& error);

// What Q is without memory-controller counts: "the per-core approximation (level L3)", or
// "not measured (null)" when the set has no approximation either.
std::string per_core_q(const EventSet& set);

// The note a run with this set and source adds (the per-core approximation, and why); "" when
// Q comes from the memory controllers or the set defines no memory-controller events.
std::string memory_source_note(const Capabilities& caps, const MemorySource& source);

}  // namespace roofprof::counters
