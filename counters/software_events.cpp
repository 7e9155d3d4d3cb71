#include "counters/software_events.hpp"

#include <linux/perf_event.h>

#include "common/error.hpp"

namespace roofprof::counters {

const std::vector<SoftwareEvent>& software_events() {
  static const std::vector<SoftwareEvent> table = {
      {"task-clock", PERF_COUNT_SW_TASK_CLOCK, "ns", AtUserLevel::all},
      {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "ns", AtUserLevel::all},
      {"page-faults", PERF_COUNT_SW_PAGE_FAULTS, "count", AtUserLevel::user_part},
      {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "count", AtUserLevel::user_part},
      {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "count", AtUserLevel::user_part},
      {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "count", AtUserLevel::nothing},
      {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "count", AtUserLevel::nothing},
  };
  return table;
}

std::vector<std::string> default_software_events() {
  return {"task-clock", "page-faults", "context-switches"};
}

std::string user_level_name(const SoftwareEvent& e) {
  return e.at_user_level == AtUserLevel::user_part ? std::string(e.name) + ":u" : std::string(e.name);
}

const SoftwareEvent& find_software_event(const std::string& given) {
  const bool user = given.size() > 2 && given.compare(given.size() - 2, 2, ":u") == 0;
  const std::string name = user ? given.substr(0, given.size() - 2) : given;
  std::string known;
  for (const SoftwareEvent& e : software_events()) {
    if (name == e.name) return e;
    known += known.empty() ? "" : ", ";
    known += e.name;
  }
  throw UserError("unknown software event '" + given + "' (known: " + known + ")");
}

}  // namespace roofprof::counters
