#include "report/survey_table.hpp"

#include <fmt/format.h>

#include "common/strings.hpp"
#include "report/format.hpp"
#include "report/text_table.hpp"

namespace roofprof::report {

namespace {

using Align = TextTable::Align;

std::string share(uint64_t n, uint64_t of) { return of ? fmt::format("{:.1f}%", 100.0 * double(n) / double(of)) : "-"; }

// Sampled time: n samples of `period` each, an estimate ("~").
std::string sampled(uint64_t n, double period) { return "~" + format_seconds(double(n) * period); }

std::string flops_or_dash(const std::optional<double>& v) { return v ? format_count(*v) : "-"; }

}  // namespace

std::string render_survey_table(const result::Run& run) {
  if (!run.survey) return "";
  const result::Survey& s = *run.survey;
  bool emulated = false;
  for (const auto& f : s.functions) emulated |= f.region.has_value() || f.self_flops.has_value();
  std::vector<TextTable::Column> cols{{"#", Align::Right},     {"self", Align::Right},  {"self%", Align::Right},
                                      {"total", Align::Right}, {"total%", Align::Right}};
  if (emulated) {
    cols.push_back({"W self", Align::Right});
    cols.push_back({"W total", Align::Right});
  }
  for (const char* h : {"function", "module", "source", "probe"}) cols.push_back({h, Align::Left});
  TextTable t(std::move(cols));
  size_t rank = 0;
  bool variants = false;
  for (const auto& f : s.functions) {
    std::vector<std::string> row{std::to_string(++rank), sampled(f.self_samples, s.period_s),
                                 share(f.self_samples, s.samples), sampled(f.total_samples, s.period_s),
                                 share(f.total_samples, s.samples)};
    if (emulated) {
      row.push_back(flops_or_dash(f.self_flops));
      row.push_back(flops_or_dash(f.region && *f.region < run.regions.size() ? run.regions[*f.region].flops
                                                                             : std::nullopt));
    }
    row.push_back(f.variant_of ? f.name + " [variant of " + *f.variant_of + "]" : f.name);
    variants |= f.variant_of.has_value();
    row.push_back(f.module.empty() ? "-" : std::string(path_basename(f.module)));
    row.push_back(f.source.value_or("-"));
    row.push_back(f.probe);
    t.add_row(std::move(row));
  }
  std::string out = fmt::format("Survey: {} {} samples every {} of CPU time ({} lost); times are sampled "
                                "estimates (~){}\n",
                                s.samples, s.event, format_seconds(s.period_s), s.lost,
                                emulated ? ", W exact (emulated run; W total: inclusive of callees)" : "");
  out += t.render();
  if (variants)
    out += "[variant of F]: not sampled; the CPU-dispatch variant of F that the program ran under emulation, whose "
           "CPU differs from this one (docs/survey.md)\n";
  return out;
}

}  // namespace roofprof::report
