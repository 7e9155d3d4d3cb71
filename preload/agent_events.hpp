#pragma once
// What the in-process agent counts: ROOFPROF_AGENT_EVENTS (its format in record_format.h) from
// the perf groups of a backend's thread counters, and where each timed (hardware) group's
// time_enabled and time_running sit in the agent's snapshots, for the replay to scale deltas.
#include <linux/perf_event.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/counts.hpp"

namespace roofprof::preload {

struct AgentEvents {
  std::string setting;   // ROOFPROF_AGENT_EVENTS
  size_t n_events = 0;
  // Each timed group's events (first, count); its two times follow the events in this order.
  std::vector<CounterGroupTimes> timed;
};

// `groups`: counters::Backend::thread_groups(); `n_events`: its events().size(), which they must
// cover (system-wide events are not the thread's). Throws UserError (one line) when the agent
// cannot count them: events outside the thread's groups, more than RP_MAX_EVENTS events, more
// than RP_MAX_TIMED_GROUPS hardware groups.
AgentEvents agent_events(const std::vector<std::vector<perf_event_attr>>& groups, size_t n_events);

}  // namespace roofprof::preload
