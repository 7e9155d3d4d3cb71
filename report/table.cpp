// The table of `roofprof report`: one row per region, sorted by total time.
#include <fmt/format.h>

#include <algorithm>

#include "report/format.hpp"
#include "report/run_facts.hpp"
#include "report/summary.hpp"
#include "report/text_table.hpp"

namespace roofprof::report {
namespace {

const std::string kUnknown = "-";

std::string or_unknown(const std::optional<std::string>& s) { return s ? *s : kUnknown; }

std::vector<const result::Region*> by_total_time(const result::Run& run) {
  std::vector<const result::Region*> out;
  for (const auto& r : run.regions) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    if (a->time_s != b->time_s) return a->time_s > b->time_s;
    return a->name < b->name;
  });
  return out;
}

std::optional<std::string> median_cell(const result::Region& r) {
  if (!r.time_per_call_s) return std::nullopt;
  return format_seconds(r.time_per_call_s->median);
}

std::optional<std::string> quartiles_cell(const result::Region& r) {
  if (!r.time_per_call_s) return std::nullopt;
  return format_seconds(r.time_per_call_s->q1) + " .. " + format_seconds(r.time_per_call_s->q3);
}

std::optional<std::string> flops_cell(const result::Region& r) {
  if (!r.flops) return std::nullopt;
  return format_si(*r.flops, "");
}

std::optional<std::string> gflops_cell(const result::Region& r) {
  auto p = flops_per_second(r);
  if (!p) return std::nullopt;
  return sig3(*p / 1e9);
}

std::optional<std::string> bytes_cell(const result::Region& r, const std::string& level) {
  auto q = total_bytes(r, level);
  if (!q) return std::nullopt;
  return format_si(*q, "B");
}

std::optional<std::string> intensity_cell(const result::Region& r, const std::string& level) {
  auto q = total_bytes(r, level);
  if (!r.flops || !q || *q <= 0) return std::nullopt;
  return sig3(*r.flops / *q);
}

// Backends of the quantities this table shows.
std::string sources_cell(const result::Region& r) {
  std::string out;
  for (const char* quantity : {"time", "flops", "bytes"})
    if (auto s = source_of(r, quantity))
      out += fmt::format("{}{}={}", out.empty() ? "" : " ", quantity, *s);
  return out.empty() ? kUnknown : out;
}

std::string render_regions(const result::Run& run, const TableOptions& options) {
  using A = TextTable::Align;
  TextTable table({{"region", A::Left},
                   {"kind", A::Left},
                   {"calls", A::Right},
                   {"total", A::Right},
                   {"median/call", A::Right},
                   {"q1 .. q3", A::Left},
                   {"flops", A::Right},
                   {"GFlop/s", A::Right},
                   {"bytes@" + options.level, A::Right},
                   {"flop/B@" + options.level, A::Right},
                   {"sources", A::Left}});
  for (const auto* r : by_total_time(run))
    table.add_row({r->name, r->kind, format_count(double(r->calls)), format_seconds(r->time_s),
                   or_unknown(median_cell(*r)), or_unknown(quartiles_cell(*r)),
                   or_unknown(flops_cell(*r)), or_unknown(gflops_cell(*r)),
                   or_unknown(bytes_cell(*r, options.level)),
                   or_unknown(intensity_cell(*r, options.level)), sources_cell(*r)});
  return table.render();
}

// Lines under the table: abnormal closes, warnings. (Counters are not in this table, so
// their multiplexing is reported by the summary only.)
std::string render_notes(const result::Run& run) {
  std::string out;
  for (const auto* r : by_total_time(run)) {
    if (std::string closes = abnormal_closes(*r); !closes.empty())
      out += fmt::format("  ! {}: {}\n", r->name, closes);
  }
  for (const auto& w : run.warnings) out += fmt::format("  warning: {}\n", w);
  return out;
}

}  // namespace

void print_table(const result::Run& run, std::FILE* out, const TableOptions& options) {
  fmt::print(out, "{}\n", run_headline(run));
  if (run.regions.empty())
    fmt::print(out, "no regions were measured\n");
  else
    fmt::print(out, "{}", render_regions(run, options));
  fmt::print(out, "{}", render_notes(run));
}

}  // namespace roofprof::report
