#pragma once
// Which event set applies to a machine: the libpfm4-detected core PMU first, then the CPU's
// family/model from /proc/cpuinfo (for parts libpfm4 4.13 does not know, e.g. Alder Lake,
// Emerald Rapids).
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
};

EventSetSelection select_event_set(const std::vector<EventSet>& catalog,
                                   const std::vector<std::string>& present_pmus,
                                   const CpuInfo& cpu);

}  // namespace roofprof::counters
