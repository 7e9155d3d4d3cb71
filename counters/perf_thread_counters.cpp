#include "counters/perf_thread_counters.hpp"

namespace roofprof::counters {

CounterValues PerfThreadCounters::read() {
  CounterValues out;
  for (const PerfGroup& g : groups_) {
    ScaledGroup s = scale_group(g.read());
    out.values.insert(out.values.end(), s.values.begin(), s.values.end());
    out.multiplexed = out.multiplexed || s.multiplexed;
  }
  return out;
}

}  // namespace roofprof::counters
