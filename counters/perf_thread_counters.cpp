#include "counters/perf_thread_counters.hpp"

namespace roofprof::counters {

CounterValues PerfThreadCounters::read() {
  // Raw counts and each group's times: scaling happens on deltas (counter_delta), as perf does.
  CounterValues out;
  for (const PerfGroup& g : groups_) {
    const GroupReading r = g.read();
    out.groups.push_back({out.values.size(), r.raw.size(), r.time_enabled, r.time_running, g.pinned()});
    // A group in error state counts nothing from then on: its values are unknown, not zero.
    for (uint64_t v : r.raw) out.values.push_back(r.in_error ? kNotCounted : static_cast<double>(v));
  }
  return out;
}

}  // namespace roofprof::counters
