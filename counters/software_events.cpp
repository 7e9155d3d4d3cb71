#include "counters/software_events.hpp"

#include <linux/perf_event.h>

#include "common/error.hpp"

namespace roofprof::counters {

const std::vector<SoftwareEvent>& software_events() {
  static const std::vector<SoftwareEvent> table = {
      {"task-clock", PERF_COUNT_SW_TASK_CLOCK, "ns"},
      {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "ns"},
      {"page-faults", PERF_COUNT_SW_PAGE_FAULTS, "count"},
      {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "count"},
      {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "count"},
      {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "count"},
      {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "count"},
  };
  return table;
}

std::vector<std::string> default_software_events() {
  return {"task-clock", "page-faults", "context-switches"};
}

const SoftwareEvent& find_software_event(const std::string& name) {
  std::string known;
  for (const SoftwareEvent& e : software_events()) {
    if (name == e.name) return e;
    known += known.empty() ? "" : ", ";
    known += e.name;
  }
  throw UserError("unknown software event '" + name + "' (known: " + known + ")");
}

}  // namespace roofprof::counters
