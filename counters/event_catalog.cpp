#include "counters/event_catalog.hpp"

#include <algorithm>

namespace roofprof::counters {

const std::vector<EventSet>& event_catalog() {
  static const std::vector<EventSet> sets = [] {
    std::vector<EventSet> out;
    for (const EmbeddedFile& f : embedded_event_files())
      out.push_back(parse_event_set(f.text, std::string("counters/events/") + f.name));
    return out;
  }();
  return sets;
}

const EventSet* find_event_set(const std::string& name) { return find_event_set(event_catalog(), name); }

const EventSet* find_event_set(const std::vector<EventSet>& catalog, const std::string& name) {
  for (const EventSet& s : catalog)
    if (s.model == name) return &s;
  for (const EventSet& s : catalog)
    if (std::find(s.pfm_pmus.begin(), s.pfm_pmus.end(), name) != s.pfm_pmus.end()) return &s;
  return nullptr;
}

std::string catalog_models() { return catalog_models(event_catalog()); }

std::string catalog_models(const std::vector<EventSet>& catalog) {
  std::vector<std::string> models;
  for (const EventSet& s : catalog) models.push_back(s.model);
  std::sort(models.begin(), models.end());
  std::string out;
  for (const std::string& m : models) out += (out.empty() ? "" : ", ") + m;
  return out;
}

}  // namespace roofprof::counters
