#pragma once
// Which event set applies to a machine: the libpfm4-detected core PMU first, then the CPU's
// family/model from /proc/cpuinfo against the sets' model ranges (parts libpfm4 4.13 does not
// know, e.g. Alder Lake, Emerald Rapids, Zen 5), then, for an unlisted model of a family some
// set lists, the set whose models are nearest, marked as such.
#include <string>
#include <vector>

#include "common/cpu_info.hpp"
#include "counters/event_set.hpp"

namespace roofprof::counters {

struct EventSetSelection {
  const EventSet* set = nullptr;  // nullptr: no set for this CPU
  // The libpfm4 PMU that qualifies the set's events: always one libpfm4 activated; "" when none
  // is (raw sets, or a CPUID match libpfm4 does not know: lines use their raw fallbacks).
  std::string core_pmu;
  std::string how;                // "libpfm4 PMU skx" / "CPU family 6 model 0x97" / why none
  // The CPU's model is in no set's ranges; `set` is its family's nearest one (how says which and
  // why). Its events may not exist on this part: results carry a warning (model_fallback_note).
  bool model_fallback = false;
};

EventSetSelection select_event_set(const std::vector<EventSet>& catalog,
                                   const std::vector<std::string>& present_pmus,
                                   const CpuInfo& cpu);

// The warning a run carries when the set was chosen for an unknown model of a known family;
// "" otherwise.
std::string model_fallback_note(const EventSetSelection& sel);

}  // namespace roofprof::counters
