#include "counters/scaling.hpp"

#include "counters/backend.hpp"

namespace roofprof::counters {

ScaledGroup scale_group(const GroupReading& r) {
  ScaledGroup out;
  out.values.reserve(r.raw.size());
  if (r.time_enabled == 0 || r.time_running >= r.time_enabled) {
    for (uint64_t v : r.raw) out.values.push_back(static_cast<double>(v));
    return out;
  }
  if (r.time_running == 0) {
    out.values.assign(r.raw.size(), kNotCounted);
    return out;
  }
  const double factor = static_cast<double>(r.time_enabled) / static_cast<double>(r.time_running);
  for (uint64_t v : r.raw) out.values.push_back(static_cast<double>(v) * factor);
  out.multiplexed = true;
  return out;
}

}  // namespace roofprof::counters
