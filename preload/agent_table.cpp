#include "preload/agent_table.hpp"

#include <charconv>

#include "preload/record_format.h"

namespace roofprof::preload {

namespace {

// Splits off the first space-separated word of `s`.
std::string_view word(std::string_view& s) {
  size_t sp = s.find(' ');
  std::string_view w = s.substr(0, sp);
  s = sp == std::string_view::npos ? std::string_view() : s.substr(sp + 1);
  return w;
}

template <typename T>
bool whole_number(std::string_view w, T& out) {
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), out);
  return ec == std::errc() && p == w.data() + w.size() && !w.empty();
}
bool number(std::string_view w, uint32_t& out) { return whole_number(w, out); }
bool number64(std::string_view w, uint64_t& out) { return whole_number(w, out); }

}  // namespace

AgentTable parse_table(std::string_view text) {
  AgentTable t;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) break;  // not published completely yet
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    std::string_view rest = line;
    std::string_view tag = word(rest);
    uint32_t a = 0, b = 0;
    if (tag == RP_TABLE_MODULE) {
      std::string_view main = word(rest), bias = word(rest);
      uint64_t at = 0;
      auto [p, ec] = std::from_chars(bias.data(), bias.data() + bias.size(), at, 16);
      if ((main == "0" || main == "1") && ec == std::errc() && p == bias.data() + bias.size() && !bias.empty() &&
          !rest.empty()) {
        t.modules.push_back({std::string(rest), main == "1", at});
        continue;
      }
    } else if (tag == RP_TABLE_REGION) {
      if (number(word(rest), a) && number(word(rest), b) && !rest.empty()) {
        auto& r = t.regions[a];
        r.spec = b;
        r.symbol = std::string(rest);
        continue;
      }
    } else if (tag == RP_TABLE_HOOKED) {
      if (number(word(rest), a) && !rest.empty() && t.regions.count(a)) {
        t.regions[a].callers.emplace_back(rest);
        continue;
      }
    } else if (tag == RP_TABLE_CALIBRATION) {
      uint64_t ns = 0, timed = 0, clock = 0;
      if (number(word(rest), a) && a > 0 && number64(word(rest), ns) && number64(word(rest), timed) &&
          number64(word(rest), clock) && rest.empty()) {
        t.calibration = AgentTable::Calibration{a, ns, timed, clock};
        continue;
      }
    } else if (tag == RP_TABLE_WARNING) {
      t.warnings.emplace_back(rest);
      continue;
    }
    t.warnings.push_back("malformed agent table line: " + std::string(line));
  }
  return t;
}

}  // namespace roofprof::preload
