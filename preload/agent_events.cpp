#include "preload/agent_events.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "preload/record_format.h"

namespace roofprof::preload {

AgentEvents agent_events(const std::vector<std::vector<perf_event_attr>>& groups, size_t n_events) {
  AgentEvents out;
  for (const auto& g : groups) {
    if (g.empty()) continue;
    if (!out.setting.empty()) out.setting += RP_EVENTS_GROUP_SEP;
    if (RP_GROUP_TIMED(g.front().type)) out.timed.push_back({out.n_events, g.size(), 0, 0});
    for (size_t i = 0; i < g.size(); ++i) {
      const perf_event_attr& a = g[i];
      // Never pinned: the tracer's groups count on the same thread, and a second pinned group
      // that cannot get its counters goes into an error state that its mmap page does not show
      // (its counts would freeze and read as exact zeros). Unpinned, it rotates: scaled, or
      // not counted (null), never wrong.
      const unsigned flags = (a.exclude_kernel ? RP_EVENT_EXCLUDE_KERNEL : 0u) | (a.exclusive ? RP_EVENT_EXCLUSIVE : 0u);
      out.setting += fmt::format("{}{}:{}:{}:{}", i ? std::string(1, RP_EVENTS_EVENT_SEP) : std::string(), a.type,
                                 a.config, a.config1, flags);
    }
    out.n_events += g.size();
  }
  if (out.n_events != n_events)
    throw UserError("the in-process agent counts each thread's own events, and the memory controllers' are "
                    "system-wide: use --scope thread (per-core Q) or run without --no-ptrace");
  if (out.n_events > RP_MAX_EVENTS)
    throw UserError(fmt::format("the in-process agent counts at most {} events ({} asked for)", RP_MAX_EVENTS, out.n_events));
  if (out.timed.size() > RP_MAX_TIMED_GROUPS)
    throw UserError(fmt::format("the in-process agent counts at most {} hardware groups ({} planned)", RP_MAX_TIMED_GROUPS,
                                out.timed.size()));
  return out;
}

}  // namespace roofprof::preload
