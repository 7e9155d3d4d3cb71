#include "report/export.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/run_facts.hpp"

namespace roofprof::report {
namespace {

using nlohmann::ordered_json;

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : "";  // shortest representation that reads back exactly
}

std::string source(const Row& row, const char* quantity) {
  return source_of(*row.subject.region, quantity).value_or("");
}

// Parameter names over all groups, in order of first appearance.
std::vector<std::string> param_names(const Model& m) {
  std::vector<std::string> names;
  for (const auto& row : m.rows)
    if (row.subject.group)
      for (const auto& [name, v] : row.subject.group->params)
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

ordered_json number_or_null(const std::optional<double>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

std::string perf_unit(const Model& m) {
  if (m.roofs) return m.roofs->perf_unit;
  return m.view.units == Units::cycles ? "flop/cycle" : "GFlop/s";
}

ordered_json spread_json(const Spread& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}, {"mean", s.mean},
          {"imbalance", number_or_null(s.imbalance())}};
}

// The job's ranks and each region's spread over them (max/mean: the load imbalance).
ordered_json job_json(const JobSummary& job) {
  ordered_json spread = ordered_json::array();
  for (const auto& s : job.spread)
    spread.push_back({{"region", s.region},
                      {"kind", s.kind},
                      {"time_s", s.time_s ? spread_json(*s.time_s) : ordered_json(nullptr)},
                      {"calls", spread_json(s.calls)},
                      {"flops", s.flops ? spread_json(*s.flops) : ordered_json(nullptr)}});
  return {{"launcher", job.launcher},
          {"id", job.id ? ordered_json(*job.id) : ordered_json(nullptr)},
          {"size", job.size},
          {"ranks", job.ranks},
          {"missing_ranks", job.missing},
          {"hosts", job.hosts},
          {"time", "a region's time is the slowest rank's (max); calls, flops, bytes and "
                   "counters are summed"},
          {"spread", spread}};
}

}  // namespace

std::string render_csv(const Model& m) {
  const auto params = param_names(m);
  std::vector<std::string> header{"input", "region", "kind", "group"};
  for (const auto& p : params) header.push_back("param_" + p);
  for (const char* h :
       {"calls", "time_s", "time_min_s", "time_q1_s", "time_median_s", "time_q3_s", "time_max_s",
        "time_quartiles_approximate", "flops", "expected_flops", "level", "traffic", "bytes",
        "intensity", "gflops", "flops_per_cycle", "bound", "bound_unit", "fraction_of_bound",
        "bound_by", "source_time", "source_flops", "source_bytes"})
    header.push_back(h);
  std::string out;
  for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  out += "\n";
  for (const auto& row : m.rows) {
    const auto& s = row.subject;
    const auto& q = s.per_call();
    std::vector<std::string> f{csv_field(m.inputs.empty() ? "" : m.inputs[size_t(row.input)]),
                               csv_field(s.region->name), s.region->kind,
                               csv_field(s.group_key())};
    for (const auto& p : params) {
      std::optional<double> v;
      if (s.group)
        if (auto it = s.group->params.find(p); it != s.group->params.end()) v = it->second;
      f.push_back(csv_number(v));
    }
    f.push_back(fmt::format("{}", s.calls()));
    f.push_back(csv_number(s.time_s()));
    for (auto part : {&result::Stats::min, &result::Stats::q1, &result::Stats::median,
                      &result::Stats::q3, &result::Stats::max})
      f.push_back(csv_number(q ? std::optional((*q).*part) : std::nullopt));
    f.push_back(row.approximate_stats ? "true" : "false");
    f.push_back(csv_number(row.m.work));
    f.push_back(csv_number(row.expected_work));
    f.push_back(m.view.level);
    f.push_back(name(m.view.rw));
    f.push_back(csv_number(row.m.traffic));
    f.push_back(csv_number(row.m.intensity));
    f.push_back(csv_number(row.m.gflops));
    f.push_back(csv_number(row.m.flops_per_cycle));
    f.push_back(csv_number(row.m.bound));
    f.push_back(row.m.bound ? perf_unit(m) : "");
    f.push_back(csv_number(row.m.fraction));
    f.push_back(row.m.bound_by);
    f.push_back(csv_field(source(row, "time")));
    f.push_back(csv_field(source(row, "flops")));
    f.push_back(csv_field(source(row, "bytes")));
    for (size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + f[i];
    out += "\n";
  }
  return out;
}

ordered_json report_json(const Model& m) {
  ordered_json j;
  j["format"] = "roofprof.report/1";
  j["headline"] = m.headline;
  j["inputs"] = m.inputs;
  j["compare"] = m.compare;
  j["view"] = {{"level", m.view.level},
               {"traffic", name(m.view.rw)},
               {"units", m.view.units == Units::cycles ? "cycles" : "seconds"},
               {"perf_unit", perf_unit(m)}};
  if (m.roofs) {
    ordered_json roofs = ordered_json::array();
    for (const auto& r : m.roofs->roofs)
      roofs.push_back({{"kind", r.compute ? "compute" : "bandwidth"},
                       {"label", r.label},
                       {"level", r.compute ? ordered_json(nullptr) : ordered_json(r.level)},
                       {"value", r.value},
                       {"unit", r.compute ? m.roofs->perf_unit : m.roofs->bandwidth_unit},
                       {"theoretical", r.theoretical},
                       {"bound", r.primary}});
    j["roofs"] = {{"threads", m.roofs->threads},
                  {"precision", m.roofs->precision},
                  {"pi", number_or_null(m.roofs->pi)},
                  {"beta", number_or_null(m.roofs->beta)},
                  {"lines", roofs}};
  } else {
    j["roofs"] = nullptr;
  }
  ordered_json rows = ordered_json::array();
  for (const auto& row : m.rows) {
    const auto& s = row.subject;
    ordered_json r;
    r["input"] = m.inputs.empty() ? "" : m.inputs[size_t(row.input)];
    r["region"] = s.region->name;
    r["kind"] = s.region->kind;
    r["group"] = s.group ? ordered_json(s.group->key) : ordered_json(nullptr);
    ordered_json params = ordered_json::object();
    if (s.group)
      for (const auto& [k, v] : s.group->params) params[k] = v;
    r["params"] = params;
    r["calls"] = s.calls();
    r["time_s"] = s.time_s() ? ordered_json(*s.time_s()) : ordered_json(nullptr);
    if (const auto& q = s.per_call())
      r["time_per_call_s"] = {{"min", q->min}, {"q1", q->q1}, {"median", q->median},
                              {"q3", q->q3}, {"max", q->max}};
    else
      r["time_per_call_s"] = nullptr;
    r["time_quartiles_approximate"] = row.approximate_stats;
    r["flops"] = number_or_null(row.m.work);
    r["expected_flops"] = number_or_null(row.expected_work);
    r["bytes"] = number_or_null(row.m.traffic);
    r["intensity"] = number_or_null(row.m.intensity);
    r["gflops"] = number_or_null(row.m.gflops);
    r["flops_per_cycle"] = number_or_null(row.m.flops_per_cycle);
    r["plot"] = {{"y", number_or_null(row.m.y)},
                 {"y_q3_call", number_or_null(row.m.y_lo)},
                 {"y_q1_call", number_or_null(row.m.y_hi)},
                 {"intensity_q1_files", number_or_null(row.x_lo)},
                 {"intensity_q3_files", number_or_null(row.x_hi)}};
    r["bound"] = number_or_null(row.m.bound);
    r["fraction_of_bound"] = number_or_null(row.m.fraction);
    r["bound_by"] = row.m.bound_by.empty() ? ordered_json(nullptr) : ordered_json(row.m.bound_by);
    ordered_json sources = ordered_json::object();
    for (const auto& [k, v] : s.region->sources) sources[k] = v;
    r["sources"] = sources;
    rows.push_back(std::move(r));
  }
  j["rows"] = rows;
  if (m.job) j["job"] = job_json(*m.job);  // only for the ranks of one MPI job
  j["notes"] = m.notes;
  j["abnormal"] = m.abnormal;
  j["warnings"] = m.warnings;
  return j;
}

}  // namespace roofprof::report
