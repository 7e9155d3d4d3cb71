#pragma once
// The perf software events roofprof knows by name.
#include <cstdint>
#include <string>
#include <vector>

namespace roofprof::counters {

// What a software event counts when the kernel side is excluded (exclude_kernel), as an
// unprivileged user must at perf_event_paranoid >= 2. Measured on Linux 6.18 (the test
// SoftwareEvents.UserLevelCountsAreWhatTheTableSays checks each row on the running kernel).
enum class AtUserLevel {
  all,        // time: the task's clock runs whatever the mode
  user_part,  // page faults taken in user mode; those inside system calls (read() into new pages) are not
  nothing,    // counted by the kernel in kernel mode only: always 0, so not a measurement
};

struct SoftwareEvent {
  const char* name;    // perf's name, e.g. "task-clock"
  uint64_t config;     // PERF_COUNT_SW_*
  const char* unit;    // "ns" or "count"
  AtUserLevel at_user_level;
};

// The name of an event counted at user level only: perf's ":u" modifier where the count
// differs from the whole one ("page-faults:u"), the plain name where it does not.
std::string user_level_name(const SoftwareEvent& e);

const std::vector<SoftwareEvent>& software_events();
// Default set when the user names none.
std::vector<std::string> default_software_events();
// Throws UserError naming the known events when `name` is not one of them. A ":u" suffix
// (user level only) is accepted and ignored.
const SoftwareEvent& find_software_event(const std::string& name);

}  // namespace roofprof::counters
