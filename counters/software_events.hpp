#pragma once
// The perf software events roofprof knows by name.
#include <cstdint>
#include <string>
#include <vector>

namespace roofprof::counters {

struct SoftwareEvent {
  const char* name;    // perf's name, e.g. "task-clock"
  uint64_t config;     // PERF_COUNT_SW_*
  const char* unit;    // "ns" or "count"
};

const std::vector<SoftwareEvent>& software_events();
// Default set when the user names none.
std::vector<std::string> default_software_events();
// Throws UserError naming the known events when `name` is not one of them.
const SoftwareEvent& find_software_event(const std::string& name);

}  // namespace roofprof::counters
