#include "counters/event_encoding.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/error.hpp"

namespace roofprof::counters {
namespace {

bool is_raw(const std::string& enc) { return enc.rfind("raw:", 0) == 0; }

uint64_t raw_config(const std::string& enc) { return std::strtoull(enc.c_str() + 4, nullptr, 16); }

}  // namespace

std::string qualifying_pmu(const EventSet& set, const std::vector<std::string>& present) {
  for (const std::string& p : set.pfm_pmus)
    if (std::find(present.begin(), present.end(), p) != present.end()) return p;
  return set.pfm_pmus.empty() ? "" : set.pfm_pmus.front();
}

std::vector<EncodedEvent> encode_event_set(const EventSet& set, const PfmLibrary& pfm,
                                           const std::string& core_pmu) {
  std::vector<EncodedEvent> out;
  for (const EventLine& line : set.events) {
    EncodedEvent e;
    e.line = line;
    if (is_raw(line.encoding)) {
      e.config = raw_config(line.encoding);
      e.type = line.perf_pmu.empty() ? PERF_TYPE_RAW : 0;
    } else {
      const bool qualified = line.encoding.find("::") != std::string::npos;
      if (!qualified && core_pmu.empty())
        throw UserError(set.source + ":" + std::to_string(line.line) +
                        ": unqualified event in a set without `match pfm`");
      e.qualified = qualified ? line.encoding : core_pmu + "::" + line.encoding;
      if (line.scope == EventScope::thread && line.perf_pmu.empty()) {
        const PerfEncoding p = pfm.encode_perf(e.qualified);
        e.type = p.type;
        e.config = p.config;
        e.config1 = p.config1;
      } else {
        e.config = pfm.encode_code(e.qualified);
        e.type = 0;
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace roofprof::counters
