#include "counters/event_encoding.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/error.hpp"

namespace roofprof::counters {
namespace {

bool is_raw(const std::string& enc) { return enc.rfind("raw:", 0) == 0; }

uint64_t raw_config(const std::string& enc) { return std::strtoull(enc.c_str() + 4, nullptr, 16); }

}  // namespace

std::string active_pmu(const EventSet& set, const std::vector<std::string>& present) {
  for (const std::string& p : set.pfm_pmus)
    if (std::find(present.begin(), present.end(), p) != present.end()) return p;
  return "";
}

std::string qualifying_pmu(const EventSet& set, const std::vector<std::string>& present) {
  const std::string active = active_pmu(set, present);
  if (!active.empty() || set.pfm_pmus.empty()) return active;
  return set.pfm_pmus.front();
}

EncodedEvent encode_line(const EventSet& set, const EventLine& line, const PfmLibrary& pfm,
                         const std::string& core_pmu) {
  EncodedEvent e;
  e.line = line;
  auto use_raw = [&](const std::string& enc) {
    e.config = raw_config(enc);
    e.type = line.perf_pmu.empty() ? PERF_TYPE_RAW : 0;
    return e;
  };
  if (is_raw(line.encoding)) return use_raw(line.encoding);
  const bool qualified = line.encoding.find("::") != std::string::npos;
  if (!qualified && core_pmu.empty()) {
    if (!line.raw_fallback.empty()) return use_raw(line.raw_fallback);
    throw UserError(set.source + ":" + std::to_string(line.line) + ": '" + line.encoding +
                    "' needs a libpfm4 core PMU and none matches this CPU");
  }
  e.qualified = qualified ? line.encoding : core_pmu + "::" + line.encoding;
  try {
    if (line.scope == EventScope::thread && line.perf_pmu.empty()) {
      const PerfEncoding p = pfm.encode_perf(e.qualified);
      e.type = p.type;
      e.config = p.config;
      e.config1 = p.config1;
    } else {
      e.config = pfm.encode_code(e.qualified);
      e.type = 0;
    }
  } catch (const UserError&) {
    if (line.raw_fallback.empty()) throw;
    e.qualified.clear();
    return use_raw(line.raw_fallback);
  }
  return e;
}

std::vector<EncodedEvent> encode_event_set(const EventSet& set, const PfmLibrary& pfm,
                                           const std::string& core_pmu) {
  std::vector<EncodedEvent> out;
  for (const EventLine& line : set.events) out.push_back(encode_line(set, line, pfm, core_pmu));
  return out;
}

}  // namespace roofprof::counters
