#pragma once
// Turning one raw group read (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING)
// into counter values: multiplex scaling and the "not counted" case.
#include <cstdint>
#include <vector>

namespace roofprof::counters {

// What the kernel returned for one group: one time pair for the whole group, one raw
// count per event (leader first).
struct GroupReading {
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
  std::vector<uint64_t> raw;
  bool in_error = false;  // read(2) returned 0: a pinned group the kernel could not schedule
};

struct ScaledGroup {
  std::vector<double> values;
  bool multiplexed = false;  // values were extrapolated (running < enabled)
};

// - enabled == 0: the thread has not run since the group was opened; raw counts (zero) are exact.
// - running == 0 < enabled: the group never got a counter; every value is kNotCounted.
// - running < enabled: value * enabled / running, multiplexed.
// - otherwise: the raw counts, exact.
ScaledGroup scale_group(const GroupReading& reading);

}  // namespace roofprof::counters
