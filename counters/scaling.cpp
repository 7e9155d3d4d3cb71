#include "counters/scaling.hpp"

#include "counters/backend.hpp"

namespace roofprof::counters {

ScaledGroup scale_group(const GroupReading& r) {
  ScaledGroup out;
  for (uint64_t v : r.raw) {
    double x = 0;
    const Scaling s = scale_counts(static_cast<double>(v), r.time_enabled, r.time_running, x);
    out.values.push_back(x);
    out.multiplexed = out.multiplexed || s == Scaling::multiplexed;
  }
  return out;
}

}  // namespace roofprof::counters
