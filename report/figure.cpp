#include "report/figure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/format.hpp"

namespace roofprof::report {
namespace {

constexpr const char* kPalette[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
constexpr const char* kLevels[] = {"L1", "L2", "L3", "DRAM"};

double decade_below(double v) { return std::pow(10.0, std::floor(std::log10(v) + 1e-9)); }
double decade_above(double v) { return std::pow(10.0, std::ceil(std::log10(v) - 1e-9)); }
// The smallest of 1, 2, 5 times a power of ten that is >= v.
double nice_above(double v) {
  double d = decade_below(v);
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * d >= v * (1 - 1e-9)) return m * d;
  return 10 * d;
}

std::string subject_name(const Row& row) {
  return row.subject.region->name + (row.subject.group ? " " + row.subject.group->key : "");
}

std::string tooltip(const Row& row, const Model& m, const std::string& level, double x,
                    const std::string& unit) {
  std::string t = subject_name(row);
  if (m.compare) t = m.inputs[size_t(row.input)] + ": " + t;
  if (row.rank) t += fmt::format(" (rank {})", *row.rank);
  t += fmt::format("\nI = {} flop/B at {}", sig3(x), level);
  if (row.x_lo) t += fmt::format(" (files q1..q3 {}..{})", sig3(*row.x_lo), sig3(*row.x_hi));
  t += fmt::format("\nP = {} {}", sig3(*row.m.y), unit);
  if (row.m.y_lo) t += fmt::format(" (calls q1..q3 {}..{})", sig3(*row.m.y_lo), sig3(*row.m.y_hi));
  if (row.m.bound)
    t += fmt::format("\n{}% of the bound {} {} ({}-bound)", sig3(*row.m.fraction * 100),
                     sig3(*row.m.bound), unit, row.m.bound_by);
  const std::optional<double> total = row.subject.time_s();
  t += fmt::format("\n{} calls, {} total", format_count(double(row.subject.calls())),
                   total ? format_seconds(*total) : "time not measured");
  if (row.expected_work && row.m.work)
    t += fmt::format("\nW {} measured, {} expected", format_si(*row.m.work, "flop"),
                     format_si(*row.expected_work, "flop"));
  return t;
}

// Rows that become markers: groups of grouped regions, other regions themselves.
bool plotted(const Row& row) {
  return row.subject.group || row.subject.region->groups.empty();
}

struct Builder {
  const Model& m;
  Figure f;
  std::map<std::pair<int, std::string>, int> series_of;  // (input, region) -> series
  std::set<int> labelled_series_;                        // series whose name is drawn

  int series_for(const Row& row, const std::string& suffix = "") {
    std::string name = row.subject.region->name + suffix;
    auto [it, fresh] = series_of.try_emplace({row.input, name}, int(f.series.size()));
    if (fresh) {
      Series s;
      s.name = m.compare ? m.inputs[size_t(row.input)] + ": " + name : name;
      s.color = int(f.series.size()) % int(std::size(kPalette));
      s.shape = m.compare ? row.input % 4 : 0;
      s.letter = char(f.series.size() < 26 ? 'A' + f.series.size() : 'a' + (f.series.size() - 26) % 26);
      f.series.push_back(s);
    }
    return it->second;
  }

  // The drawn labels of a point: its region's name (once per series: the first point) and
  // what tells it apart within its region (size, innermost caller).
  void set_labels(Marker& mk, const Row& row) {
    if (row.input != 0) return;  // --compare: the first file's points carry the labels
    const result::Group* g = row.subject.group;
    const bool first_of_series = labelled_series_.insert(mk.series).second;
    if (!g || first_of_series || !g->call_path.empty()) mk.short_label = row.subject.region->name;
    if (g && !g->call_path.empty()) mk.sub_label = "<- " + g->call_path.front();
    else if (g) mk.sub_label = short_key(g->key);
  }

  void add_points() {
    const std::string unit = m.roofs ? m.roofs->perf_unit
                                     : (m.view.units == Units::cycles ? "flop/cycle" : "GFlop/s");
    for (const auto& row : m.rows) {
      if (!plotted(row)) continue;
      if (auto why = unplottable(row)) {
        f.unplotted.push_back(subject_name(row) + ": " + *why);
        continue;
      }
      if (m.view.hierarchical) {
        add_levels(row, unit);
        continue;
      }
      Marker mk;
      mk.x = *row.m.intensity;
      mk.y = *row.m.y;
      mk.x_lo = row.x_lo;
      mk.x_hi = row.x_hi;
      mk.y_lo = row.m.y_lo;
      mk.y_hi = row.m.y_hi;
      mk.series = series_for(row);
      mk.label = row.subject.group ? row.subject.group->key : "";
      mk.tooltip = tooltip(row, m, traffic_label(m.view), *row.m.intensity, unit);
      mk.input = row.input;
      mk.subject = subject_name(row);
      set_labels(mk, row);
      f.markers.push_back(mk);
    }
    add_rank_points(unit);
  }

  // Why a row has no point (null when it has one): the first quantity the point needs that is
  // unknown, zero or not drawable on log axes.
  std::optional<std::string> unplottable(const Row& row) const {
    const std::string level = traffic_label(m.view);
    const std::optional<double> t = row.subject.time_s();
    if (row.subject.calls() == 0) return "never entered";
    if (!t) return "time not measured";
    if (*t <= 0) return "time 0";
    if (!row.m.work) return "W not measured (no backend counted flops)";
    if (*row.m.work <= 0) return "W = 0 flops (P = 0 has no place on log axes)";
    if (!row.m.y) return "P in flop/cycle unknown (no measured clock)";
    if (m.view.hierarchical) {
      for (const char* lv : kLevels)
        if (auto q = traffic(row.subject.bytes(), lv, m.view.rw); q && *q > 0) return std::nullopt;
      return "no memory level with bytes measured";
    }
    if (!row.m.traffic) return "bytes at " + level + " not measured";
    if (*row.m.traffic <= 0) return "0 B at " + level + " (I = W/Q is infinite)";
    return std::nullopt;
  }

  // --per-rank: each rank's point, one series per region (triangles), labelled with the rank;
  // not joined into series lines.
  void add_rank_points(const std::string& unit) {
    for (const auto& row : m.rank_rows) {
      if (!plotted(row) || !row.m.y || !row.m.intensity || *row.m.y <= 0 || *row.m.intensity <= 0)
        continue;
      Marker mk;
      mk.x = *row.m.intensity;
      mk.y = *row.m.y;
      mk.series = series_for(row, " (ranks)");
      f.series[size_t(mk.series)].shape = 2;
      mk.sub_label = "r" + std::to_string(*row.rank);
      mk.tooltip = tooltip(row, m, traffic_label(m.view), *row.m.intensity, unit);
      mk.subject = subject_name(row) + " rank " + std::to_string(*row.rank);
      f.markers.push_back(std::move(mk));
    }
  }

  // Hierarchical view: the same P at each memory level's intensity, joined left to right.
  void add_levels(const Row& row, const std::string& unit) {
    std::string suffix = row.subject.group ? " " + row.subject.group->key : "";
    int s = series_for(row, suffix);
    Link link{{}, s, false};
    for (const char* level : kLevels) {
      auto q = traffic(row.subject.bytes(), level, m.view.rw);
      if (!q || *q <= 0) continue;
      double x = *row.m.work / *q;
      View v = m.view;
      v.level = level;
      Marker mk;
      mk.x = x;
      mk.y = *row.m.y;
      mk.y_lo = row.m.y_lo;
      mk.y_hi = row.m.y_hi;
      mk.series = s;
      mk.label = mk.sub_label = level;
      if (link.points.empty() && row.input == 0) mk.short_label = row.subject.region->name;
      mk.tooltip = tooltip(row, m, traffic_label(v), x, unit);
      mk.input = row.input;
      mk.subject = subject_name(row) + " " + level;
      f.markers.push_back(std::move(mk));
      link.points.emplace_back(x, *row.m.y);
    }
    std::sort(link.points.begin(), link.points.end());
    if (link.points.size() > 1) f.links.push_back(std::move(link));
  }

  // Series over sizes: the markers of one series with a label, by intensity.
  void add_series_links() {
    if (m.view.hierarchical) return;
    // In the order of the rows: groups by size.
    std::vector<Link> links(f.series.size());
    for (const auto& mk : f.markers)
      if (!mk.label.empty()) links[size_t(mk.series)].points.emplace_back(mk.x, mk.y);
    for (size_t s = 0; s < links.size(); ++s) {
      links[s].series = int(s);
      if (links[s].points.size() > 1) f.links.push_back(std::move(links[s]));
    }
  }

  // --compare: the same region and group in consecutive files, dashed.
  void add_compare_links() {
    if (!m.compare || m.view.hierarchical) return;
    std::map<std::string, std::vector<std::pair<int, std::pair<double, double>>>> by_subject;
    for (const auto& mk : f.markers) by_subject[mk.subject].push_back({mk.input, {mk.x, mk.y}});
    for (auto& [key, pts] : by_subject) {
      if (pts.size() < 2) continue;
      std::sort(pts.begin(), pts.end());
      Link link{{}, -1, true};
      for (const auto& [input, p] : pts) link.points.push_back(p);
      f.links.push_back(std::move(link));
    }
  }

  void set_axes() {
    std::vector<double> xs, ys;
    for (const auto& mk : f.markers) {
      xs.push_back(mk.x_lo.value_or(mk.x));
      xs.push_back(mk.x_hi.value_or(mk.x));
      ys.push_back(mk.y_lo.value_or(mk.y));
      ys.push_back(mk.y_hi.value_or(mk.y));
    }
    std::optional<double> top_pi, top_beta;
    if (m.roofs) {
      for (const auto& r : m.roofs->roofs) {
        if (r.compute) top_pi = std::max(top_pi.value_or(0), r.value);
        else top_beta = std::max(top_beta.value_or(0), r.value);
        if (r.compute) ys.push_back(r.value);
      }
      if (m.roofs->pi && m.roofs->beta) xs.push_back(*m.roofs->pi / *m.roofs->beta);
      if (top_pi && top_beta) xs.push_back(*top_pi / *top_beta);
    }
    if (xs.empty()) xs = {0.1, 10};
    if (ys.empty()) ys = {1, 100};
    f.x_min = decade_below(*std::min_element(xs.begin(), xs.end()) / 2);
    f.x_max = decade_above(*std::max_element(xs.begin(), xs.end()) * 2);
    for (int i = 0; f.x_max / f.x_min < 999; ++i) (i % 2 ? f.x_max *= 10 : f.x_min /= 10);
    f.y_max = nice_above(*std::max_element(ys.begin(), ys.end()) * 1.25);
    f.y_min = std::min(decade_below(*std::min_element(ys.begin(), ys.end()) / 1.5),
                       f.y_max / 1000);
    // Bandwidth roofs should enter through the bottom or the left edge of the plot.
    if (top_beta && m.roofs) {
      double lowest_beta = top_beta.value();
      for (const auto& r : m.roofs->roofs)
        if (!r.compute) lowest_beta = std::min(lowest_beta, r.value);
      while (lowest_beta * f.x_min > f.y_max / 10 && f.x_min > 1e-6) f.x_min /= 10;
    }
  }

  void add_roofs() {
    if (!m.roofs) return;
    const auto& roofs = m.roofs->roofs;
    double top_pi = 0, top_beta = 0;
    for (const auto& r : roofs) (r.compute ? top_pi : top_beta) =
        std::max(r.compute ? top_pi : top_beta, r.value);
    for (const auto& r : roofs) {
      RoofLine line;
      line.compute = r.compute;
      line.theoretical = r.theoretical;
      line.primary = r.primary;
      line.label = fmt::format("{}: {} {}", r.label, sig3(r.value),
                               r.compute ? m.roofs->perf_unit : m.roofs->bandwidth_unit);
      if (r.compute) {
        line.x0 = top_beta > 0 ? std::max(f.x_min, r.value / top_beta) : f.x_min;
        line.x1 = f.x_max;
        line.y0 = line.y1 = r.value;
      } else {
        line.x0 = std::max(f.x_min, f.y_min / r.value);
        line.x1 = std::min(f.x_max, top_pi > 0 ? top_pi / r.value : f.y_max / r.value);
        line.x1 = std::max(line.x1, line.x0);
        line.y0 = r.value * line.x0;
        line.y1 = r.value * line.x1;
      }
      f.roofs.push_back(line);
    }
    if (m.roofs->pi && m.roofs->beta) {
      double x = *m.roofs->pi / *m.roofs->beta;
      f.ridges.push_back({x, *m.roofs->pi, fmt::format("ridge {} flop/B", sig3(x))});
    }
  }

  void titles() {
    const std::string unit = m.roofs ? m.roofs->perf_unit
                                     : (m.view.units == Units::cycles ? "flop/cycle" : "GFlop/s");
    std::string traffic = m.view.hierarchical
                              ? std::string("each memory level") +
                                    (m.view.rw == Rw::both ? "" : std::string(", ") + name(m.view.rw))
                              : traffic_label(m.view);
    f.title = "Roofline: " + traffic;
    if (m.roofs)
      f.title += fmt::format(", {}, {} thread{}", m.roofs->precision, m.roofs->threads,
                             m.roofs->threads == 1 ? "" : "s");
    f.x_label = "operational intensity I = W/Q [flop/B" +
                (m.view.rw == Rw::both ? std::string("") : std::string(" ") + name(m.view.rw)) + "]";
    f.y_label = "performance P [" + unit + "]";
    if (!m.roofs) f.notes.push_back("no ceilings: points only, no roofs");
    bool y_bars = false, x_bars = false;
    for (const auto& mk : f.markers) y_bars = y_bars || mk.y_lo, x_bars = x_bars || mk.x_lo;
    if (y_bars)
      f.notes.push_back("markers: P = total W / total T; vertical bars: P of the calls at q1 and q3 of "
                        "the time per call");
    if (x_bars) f.notes.push_back("horizontal bars: q1 and q3 of I over the merged files");
  }
};

}  // namespace

std::string short_key(const std::string& key) {
  std::string common;
  size_t pos = 0;
  while (pos < key.size()) {
    size_t comma = key.find(',', pos);
    std::string item = key.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string::npos) return key;
    std::string value = item.substr(eq + 1);
    if (!common.empty() && value != common) return key;
    common = value;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return common.empty() ? key : common;
}

std::string unplotted_note(const Figure& f) {
  std::string list;
  for (const auto& n : f.unplotted) list += (list.empty() ? "" : "; ") + n;
  return list.empty() ? "" : "not plotted: " + list;
}

const char* palette(int i) { return kPalette[size_t(i) % std::size(kPalette)]; }

Figure build_figure(const Model& model) {
  Builder b{model, {}, {}, {}};
  b.add_points();
  b.add_series_links();
  b.add_compare_links();
  b.set_axes();
  b.add_roofs();
  b.titles();
  return std::move(b.f);
}

}  // namespace roofprof::report
