#include "counters/event_set_selection.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fmt/format.h>

#include "counters/event_encoding.hpp"

namespace roofprof::counters {
namespace {

// How far `model` is from the set's nearest listed model of `family`; INT_MAX when the set
// lists none of that family.
int model_distance(const EventSet& s, int family, int model) {
  int best = INT_MAX;
  for (const CpuModels& m : s.cpus) {
    if (m.family != family) continue;
    const int d = model < m.first ? m.first - model : model > m.last ? model - m.last : 0;
    best = std::min(best, d);
  }
  return best;
}

// The set of the CPU's vendor and family with the nearest models (the later one on a tie:
// newer parts get higher model numbers); nullptr when no set lists the family.
const EventSet* nearest_of_family(const std::vector<EventSet>& catalog, const CpuInfo& cpu) {
  const EventSet* best = nullptr;
  int best_distance = INT_MAX;
  for (const EventSet& s : catalog) {
    if (s.vendor != cpu.vendor_short()) continue;
    const int d = model_distance(s, cpu.family, cpu.model);
    if (d < best_distance || (d == best_distance && d != INT_MAX)) {
      best = &s;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace

EventSetSelection select_event_set(const std::vector<EventSet>& catalog,
                                   const std::vector<std::string>& present_pmus,
                                   const CpuInfo& cpu) {
  for (const EventSet& s : catalog)
    for (const std::string& p : s.pfm_pmus)
      if (std::find(present_pmus.begin(), present_pmus.end(), p) != present_pmus.end())
        return {&s, p, "libpfm4 PMU " + p};
  for (const EventSet& s : catalog) {
    if (s.vendor != cpu.vendor_short()) continue;
    for (const CpuModels& m : s.cpus)
      if (m.contains(cpu.family, cpu.model))
        return {&s, active_pmu(s, present_pmus),
                fmt::format("CPU family {:#x} model {:#x}", cpu.family, cpu.model)};
  }
  if (const EventSet* s = nearest_of_family(catalog, cpu))
    return {s, active_pmu(*s, present_pmus),
            fmt::format("unknown model {:#x} of known family {:#x}: the nearest set, {} (models {} away)",
                        cpu.model, cpu.family, s->model, model_distance(*s, cpu.family, cpu.model)),
            true};
  std::string pmus;
  for (const std::string& p : present_pmus) pmus += (pmus.empty() ? "" : ", ") + p;
  return {nullptr, "",
          fmt::format("no event set for {} family {:#x} model {:#x} (libpfm4 core PMUs: {})",
                      cpu.vendor.empty() ? "this CPU" : cpu.vendor, cpu.family, cpu.model,
                      pmus.empty() ? "none" : pmus)};
}

std::string model_fallback_note(const EventSetSelection& sel) {
  if (!sel.model_fallback || !sel.set) return "";
  return fmt::format("event set chosen for an {}; its events may not exist or mean the same on this "
                     "part: W and Q are unverified (add a set for it: docs/counters.md, user event sets)",
                     sel.how);
}

}  // namespace roofprof::counters
