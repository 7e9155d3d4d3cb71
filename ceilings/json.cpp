#include "ceilings/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ceilings/names.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"

namespace roofprof::ceilings {
namespace {

using nlohmann::json;

// An integer field as T. nlohmann's get<int>() of a float outside int's range is undefined
// behaviour (found by fuzz_loaders), and get<uint64_t>() of a negative integer wraps: both are
// refused here as malformed.
template <class T>
T whole(const json& v) {
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return v.get<T>();
  } else if (v.is_number_integer()) {
    const auto x = v.get<std::int64_t>();
    if (static_cast<double>(x) >= lo && static_cast<double>(x) <= hi) return static_cast<T>(x);
  } else if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::isfinite(x) && x == std::floor(x) && x >= lo && x < hi) return static_cast<T>(x);
  }
  throw json::type_error::create(302, "integer expected (or out of range): " + v.dump().substr(0, 40), nullptr);
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> opt(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<double>();
}

void put(json& j, const char* key, const Spread& s) {
  j[key] = s.median;
  j[std::string(key) + "_min"] = s.min;
  j[std::string(key) + "_max"] = s.max;
  j["samples"] = s.samples;
}
Spread spread(const json& j, const char* key) {
  return {j.at(key).get<double>(), j.at(std::string(key) + "_min").get<double>(),
          j.at(std::string(key) + "_max").get<double>(), whole<int>(j.at("samples"))};
}

// The sanity check's reason (optional member, absent when the line passed).
std::string flagged(const json& e) {
  return e.contains("flagged") ? e["flagged"].get<std::string>() : std::string();
}

// A value out of range: one line naming it (numbers from a file are checked before use).
[[noreturn]] void bad(const std::string& origin, const std::string& what) {
  throw UserError(origin + ": " + what + " is out of range; measure again with `roofprof ceilings`");
}

void check_amount(const std::string& origin, const std::string& what, double v) {
  if (!std::isfinite(v) || v < 0) bad(origin, what);
}

void check_spread(const std::string& origin, const std::string& what, const Spread& s) {
  check_amount(origin, what, s.median);
  check_amount(origin, what + "_min", s.min);
  check_amount(origin, what + "_max", s.max);
  if (!(s.min <= s.median && s.median <= s.max) || s.samples < 0) bad(origin, what + " (min <= median <= max)");
}

void check_threads(const std::string& origin, int threads) {
  if (threads < 1 || threads > (1 << 20)) bad(origin, "threads");
}

// Every number of a loaded file: finite, not negative, spreads ordered, counts positive.
void validate(const Ceilings& c, const std::string& origin) {
  if (c.machine.cores < 1 || c.machine.cores > (1 << 20)) bad(origin, "machine.cores");
  for (const auto& g : c.caches)
    if (g.level < 1 || g.level > 4 || g.line < 1 || g.shared_by_cpus < 1) bad(origin, "caches");
  for (const auto& g : c.measured_caches)
    if (g.level < 1 || g.level > 4 || (g.effective_bytes && *g.effective_bytes == 0)) bad(origin, "measured_caches");
  const auto& m = c.method;
  for (double v : {m.timer_ghz, m.timer_overhead_ns, m.sample_ms, m.seconds}) check_amount(origin, "method", v);
  if (m.samples < 0) bad(origin, "method.samples");
  for (const auto& f : c.frequency) check_threads(origin, f.threads), check_spread(origin, "frequency.ghz", f.ghz);
  for (const auto& x : c.compute) {
    check_threads(origin, x.threads);
    check_spread(origin, "compute.gflops", x.gflops);
    check_amount(origin, "compute.ghz", x.ghz);
    if (x.theoretical_gflops) check_amount(origin, "compute.theoretical_gflops", *x.theoretical_gflops);
  }
  for (const auto& x : c.bandwidth) {
    check_threads(origin, x.threads);
    check_spread(origin, "bandwidth.gbytes_per_s", x.gbytes_per_s);
    check_amount(origin, "bandwidth.read_gbytes_per_s", x.read_gbytes_per_s);
    check_amount(origin, "bandwidth.write_gbytes_per_s", x.write_gbytes_per_s);
    if (x.theoretical_gbytes_per_s) check_amount(origin, "bandwidth.theoretical_gbytes_per_s", *x.theoretical_gbytes_per_s);
  }
  for (const auto& x : c.latency) {
    check_spread(origin, "latency.ns", x.ns);
    check_amount(origin, "latency.cycles", x.cycles);
  }
  for (const auto& p : c.sweep) {
    check_amount(origin, "sweep.load_gbytes_per_s", p.load_gbytes_per_s);
    check_amount(origin, "sweep.latency_ns", p.latency_ns);
  }
}

}  // namespace

nlohmann::json to_json(const Ceilings& c) {
  json j;
  j["schema"] = kSchema;
  j["machine"] = {{"cpu_model", c.machine.cpu_model},
                  {"cores", c.machine.cores},
                  {"kernel", c.machine.kernel},
                  {"microcode", c.machine.microcode}};
  j["caches"] = json::array();
  for (const auto& g : c.caches)
    j["caches"].push_back({{"level", g.level},
                           {"size_bytes", g.size},
                           {"line_bytes", g.line},
                           {"shared_by_cpus", g.shared_by_cpus}});
  j["measured_caches"] = json::array();
  for (const auto& g : c.measured_caches)
    j["measured_caches"].push_back({{"level", g.level}, {"effective_bytes", g.effective_bytes ? json(*g.effective_bytes) : json(nullptr)}});
  j["isas"] = c.isas;
  const auto& m = c.method;
  j["method"] = {{"mode", name(m.mode)},
                 {"timer", m.timer},
                 {"timer_ghz", m.timer_ghz},
                 {"timer_overhead_ns", m.timer_overhead_ns},
                 {"sample_ms", m.sample_ms},
                 {"samples", m.samples},
                 {"core_model", m.core_model.empty() ? json(nullptr) : json(m.core_model)},
                 {"parts", m.parts},
                 {"measured_at", m.measured_at},
                 {"seconds", m.seconds}};
  j["frequency"] = json::array();
  for (const auto& f : c.frequency) {
    json e = {{"threads", f.threads}};
    put(e, "ghz", f.ghz);
    j["frequency"].push_back(e);
  }
  j["compute"] = json::array();
  for (const auto& x : c.compute) {
    json e = {{"isa", name(x.isa)},
              {"precision", name(x.precision)},
              {"op", name(x.op)},
              {"threads", x.threads}};
    put(e, "gflops", x.gflops);
    e["ghz"] = x.ghz;
    e["theoretical_gflops"] = opt(x.theoretical_gflops);
    if (!x.flagged.empty()) e["flagged"] = x.flagged;
    j["compute"].push_back(e);
  }
  j["bandwidth"] = json::array();
  for (const auto& x : c.bandwidth) {
    json e = {{"level", name(x.level)},
              {"kind", name(x.kind)},
              {"threads", x.threads},
              {"isa", name(x.isa)},
              {"working_set_bytes", x.working_set_bytes}};
    put(e, "gbytes_per_s", x.gbytes_per_s);
    e["read_gbytes_per_s"] = x.read_gbytes_per_s;
    e["write_gbytes_per_s"] = x.write_gbytes_per_s;
    e["theoretical_gbytes_per_s"] = opt(x.theoretical_gbytes_per_s);
    if (!x.flagged.empty()) e["flagged"] = x.flagged;
    j["bandwidth"].push_back(e);
  }
  j["latency"] = json::array();
  for (const auto& x : c.latency) {
    json e = {{"level", name(x.level)}, {"working_set_bytes", x.working_set_bytes}};
    put(e, "ns", x.ns);
    e["cycles"] = x.cycles;
    j["latency"].push_back(e);
  }
  j["sweep"] = json::array();
  for (const auto& p : c.sweep)
    j["sweep"].push_back({{"working_set_bytes", p.working_set_bytes},
                          {"load_gbytes_per_s", p.load_gbytes_per_s},
                          {"latency_ns", p.latency_ns}});
  return j;
}

Ceilings from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != kSchema)
    throw UserError(origin + ": not a ceilings file of schema " + kSchema);
  try {
    Ceilings c;
    const auto& mj = j.at("machine");
    c.machine = {mj.at("cpu_model").get<std::string>(), whole<int>(mj.at("cores")),
                 mj.at("kernel").get<std::string>(), mj.at("microcode").get<std::string>()};
    for (const auto& g : j.at("caches")) {
      const int line = whole<int>(g.at("line_bytes"));  // below 1: 0, which validate() rejects
      c.caches.push_back({whole<int>(g.at("level")), whole<std::uint64_t>(g.at("size_bytes")), 0,
                          uint64_t(std::max(line, 0)), whole<int>(g.at("shared_by_cpus")), {}});
    }
    if (j.contains("measured_caches"))  // absent in files from before the measured hierarchy
      for (const auto& g : j["measured_caches"])
        c.measured_caches.push_back({whole<int>(g.at("level")), g.at("effective_bytes").is_null()
                                                                    ? std::nullopt
                                                                    : std::optional(whole<std::uint64_t>(g["effective_bytes"]))});
    c.isas = j.at("isas").get<std::vector<std::string>>();
    const auto& m = j.at("method");
    c.method.mode = parse_mode(m.at("mode").get<std::string>());
    c.method.timer = m.at("timer").get<std::string>();
    c.method.timer_ghz = m.at("timer_ghz").get<double>();
    c.method.timer_overhead_ns = m.at("timer_overhead_ns").get<double>();
    c.method.sample_ms = m.at("sample_ms").get<double>();
    c.method.samples = whole<int>(m.at("samples"));
    c.method.core_model = m.at("core_model").is_null() ? "" : m["core_model"].get<std::string>();
    c.method.parts = m.at("parts").get<std::vector<std::string>>();
    c.method.measured_at = m.at("measured_at").get<std::string>();
    c.method.seconds = m.at("seconds").get<double>();
    for (const auto& e : j.at("frequency"))
      c.frequency.push_back({whole<int>(e.at("threads")), spread(e, "ghz")});
    for (const auto& e : j.at("compute"))
      c.compute.push_back({parse_isa(e.at("isa").get<std::string>()),
                           parse_precision(e.at("precision").get<std::string>()),
                           parse_op(e.at("op").get<std::string>()), whole<int>(e.at("threads")),
                           spread(e, "gflops"), e.at("ghz").get<double>(),
                           opt(e.at("theoretical_gflops")), flagged(e)});
    for (const auto& e : j.at("bandwidth"))
      c.bandwidth.push_back({parse_level(e.at("level").get<std::string>()),
                             parse_kind(e.at("kind").get<std::string>()),
                             whole<int>(e.at("threads")), parse_isa(e.at("isa").get<std::string>()),
                             whole<std::uint64_t>(e.at("working_set_bytes")), spread(e, "gbytes_per_s"),
                             e.at("read_gbytes_per_s").get<double>(),
                             e.at("write_gbytes_per_s").get<double>(),
                             opt(e.at("theoretical_gbytes_per_s")), flagged(e)});
    for (const auto& e : j.at("latency"))
      c.latency.push_back({parse_level(e.at("level").get<std::string>()),
                           whole<std::uint64_t>(e.at("working_set_bytes")), spread(e, "ns"),
                           e.at("cycles").get<double>()});
    for (const auto& e : j.at("sweep"))
      c.sweep.push_back({whole<std::uint64_t>(e.at("working_set_bytes")),
                         e.at("load_gbytes_per_s").get<double>(), e.at("latency_ns").get<double>()});
    validate(c, origin);
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(origin + ": malformed ceilings file (" + e.what() + ")");
  }
}

Ceilings parse(const std::string& text, const std::string& origin) {
  check_json_depth(text, origin, "not a ceilings file (written by `roofprof ceilings -o FILE`)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw UserError(origin + ": not valid JSON");
  }
  return from_json(j, origin);
}

}  // namespace roofprof::ceilings
