#include "counters/event_set_selection.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "counters/event_encoding.hpp"


namespace roofprof::counters {

EventSetSelection select_event_set(const std::vector<EventSet>& catalog,
                                   const std::vector<std::string>& present_pmus,
                                   const CpuInfo& cpu) {
  for (const EventSet& s : catalog)
    for (const std::string& p : s.pfm_pmus)
      if (std::find(present_pmus.begin(), present_pmus.end(), p) != present_pmus.end())
        return {&s, p, "libpfm4 PMU " + p};
  for (const EventSet& s : catalog) {
    if (s.vendor != cpu.vendor_short()) continue;
    for (const auto& [family, model] : s.cpus)
      if (family == cpu.family && model == cpu.model)
        return {&s, active_pmu(s, present_pmus),
                fmt::format("CPU family {:#x} model {:#x}", family, model)};
  }
  std::string pmus;
  for (const std::string& p : present_pmus) pmus += (pmus.empty() ? "" : ", ") + p;
  return {nullptr, "",
          fmt::format("no event set for {} family {:#x} model {:#x} (libpfm4 core PMUs: {})",
                      cpu.vendor.empty() ? "this CPU" : cpu.vendor, cpu.family, cpu.model,
                      pmus.empty() ? "none" : pmus)};
}

}  // namespace roofprof::counters
