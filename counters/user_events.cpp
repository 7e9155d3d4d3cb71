#include "counters/user_events.hpp"

#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

#include "common/error.hpp"

namespace roofprof::counters {
namespace {

// "skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE" -> "fp_arith_inst_retired_scalar_double"
std::string id_for(const std::string& event, std::set<std::string>& used) {
  const size_t sep = event.find("::");
  const std::string name = sep == std::string::npos ? event : event.substr(sep + 2);
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  if (id.empty() || !std::islower(static_cast<unsigned char>(id[0]))) id = "e_" + id;
  std::string unique = id;
  for (int n = 2; !used.insert(unique).second; ++n) unique = id + "_" + std::to_string(n);
  return unique;
}

}  // namespace

EventSet event_set_from_user(const std::vector<std::string>& specs, const EventSet* base) {
  EventSet s;
  s.model = "user";
  s.title = "events given with --events";
  s.vendor = base ? base->vendor : "intel";
  s.source = "--events";
  s.counters = base ? base->counters : std::vector<CounterLimit>{{"", 4}};
  Formula w{"W", {}, false, 0};
  std::set<std::string> used;
  for (const std::string& arg : specs) {
    std::stringstream list(arg);
    std::string spec;
    while (std::getline(list, spec, ',')) {
      if (spec.empty()) continue;
      const size_t star = spec.rfind('*');
      const std::string event = spec.substr(0, star);
      if (event.find("::") == std::string::npos)
        throw UserError("--events '" + spec + "': give a fully qualified libpfm4 event (pmu::EVENT:UMASK[*WEIGHT]), e.g. skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE*1");
      EventLine line;
      line.id = id_for(event, used);
      line.encoding = event;
      s.events.push_back(line);
      if (star != std::string::npos) {
        const std::string num = spec.substr(star + 1);
        char* end = nullptr;
        const double weight = std::strtod(num.c_str(), &end);
        if (num.empty() || *end != '\0' || !(weight > 0))
          throw UserError("--events '" + spec + "': the weight after * must be a positive number");
        w.terms.push_back({weight, line.id});
      }
    }
  }
  if (s.events.empty()) throw UserError("--events: no events given");
  if (w.terms.empty()) s.fp_missing = "no weighted events were given with --events";
  else s.formulas.push_back(w);
  return s;
}

}  // namespace roofprof::counters
