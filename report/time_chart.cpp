#include "report/time_chart.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/figure.hpp"
#include "report/format.hpp"
#include "report/label_layout.hpp"
#include "report/svg.hpp"

namespace roofprof::report {
namespace {

constexpr size_t kMaxRows = 40;
constexpr double kRowH = 20, kTop = 52, kLabelW = 270, kValueW = 190;

std::string row_name(const Model& m, const Row& row) {
  if (row.subject.group) return "  " + row.subject.group->key;
  std::string name = row.subject.region->name;
  return m.compare ? m.inputs[size_t(row.input)] + ": " + name : name;
}

std::string value_text(const Row& row) {
  const auto t = row.subject.time_s();
  const uint64_t calls = row.subject.calls();
  if (!t) return "time not measured";
  return fmt::format("{}, {} call{}", format_seconds(*t), format_count(double(calls)), calls == 1 ? "" : "s");
}

}  // namespace

std::string render_time_chart(const Model& m, int width) {
  double longest = 0;
  for (const auto& row : m.rows)
    if (auto t = row.subject.time_s()) longest = std::max(longest, *t);
  const size_t shown = std::min(m.rows.size(), kMaxRows);
  const double height = kTop + kRowH * double(shown) + (m.rows.size() > shown ? 40 : 24);
  const double bar_x = kLabelW, bar_w = width - kLabelW - kValueW;
  std::string out = fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" class=\"time-chart\">\n<style>\n"
      "text{{font-family:sans-serif;font-size:11px;fill:#222}}\n.title{{font-size:14px;font-weight:bold}}\n"
      ".time-bar{{fill:#1f77b4}}\n.time-bar.group{{fill:#9ecae1}}\n.note{{font-size:10px;fill:#555}}\n</style>\n"
      "<text class=\"title\" x=\"8\" y=\"22\">Time by region</text>\n"
      "<text class=\"note\" x=\"8\" y=\"38\">no point has both W and Q to place on a roofline (see \"not plotted\" "
      "below): total wall time of each region's calls</text>\n",
      width, height);
  for (size_t i = 0; i < shown; ++i) {
    const Row& row = m.rows[i];
    const double y = kTop + kRowH * double(i);
    const auto t = row.subject.time_s();
    const double w = t && longest > 0 ? std::max(1.0, *t / longest * bar_w) : 0;
    out += fmt::format("<text class=\"time-label\" x=\"8\" y=\"{:.1f}\">{}</text>", y + 14,
                       xml_escape(clip_to_width(row_name(m, row), 11, kLabelW - 16)));
    if (t)
      out += fmt::format("<rect class=\"time-bar{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"14\">"
                         "<title>{}</title></rect>",
                         row.subject.group ? " group" : "", bar_x, y + 3, w, xml_escape(value_text(row)));
    out += fmt::format("<text class=\"time-value\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", bar_x + w + 6, y + 14,
                       xml_escape(value_text(row)));
  }
  if (m.rows.size() > shown)
    out += fmt::format("<text class=\"note\" x=\"8\" y=\"{:.1f}\">and {} more rows: see the table</text>\n",
                       kTop + kRowH * double(shown) + 16, m.rows.size() - shown);
  return out + "</svg>\n";
}

}  // namespace roofprof::report
