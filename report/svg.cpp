#include "report/svg.hpp"

#include "report/label_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace roofprof::report {
namespace {

// Plot area inside the picture; the legend sits right of it.
struct Frame {
  double left = 78, top = 46, right, bottom;
  double lx0, lx1, ly0, ly1;  // log10 of the axis ranges
  double px(double x) const { return left + (std::log10(x) - lx0) / (lx1 - lx0) * (right - left); }
  double py(double y) const {
    return bottom - (std::log10(y) - ly0) / (ly1 - ly0) * (bottom - top);
  }
};

std::string num(double v) { return fmt::format("{:.1f}", v); }

// 0.001 .. 10000 written out, other decades as 1e5.
std::string decade_label(int e) {
  if (e >= -3 && e < 0) return fmt::format("{:.{}f}", std::pow(10.0, e), -e);
  if (e >= 0 && e <= 4) return fmt::format("{:.0f}", std::pow(10.0, e));
  return fmt::format("1e{}", e);
}

std::string marker_shape(int shape, double x, double y, double r, const std::string& attrs) {
  switch (shape % 4) {
    case 1:
      return fmt::format("<rect {} x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", attrs,
                         num(x - r), num(y - r), num(2 * r), num(2 * r));
    case 2:
      return fmt::format("<path {} d=\"M{} {}L{} {}L{} {}Z\"/>", attrs, num(x), num(y - r * 1.2),
                         num(x + r * 1.1), num(y + r * 0.8), num(x - r * 1.1), num(y + r * 0.8));
    case 3:
      return fmt::format("<path {} d=\"M{} {}L{} {}L{} {}L{} {}Z\"/>", attrs, num(x),
                         num(y - r * 1.3), num(x + r * 1.3), num(y), num(x), num(y + r * 1.3),
                         num(x - r * 1.3), num(y));
    default:
      return fmt::format("<circle {} cx=\"{}\" cy=\"{}\" r=\"{}\"/>", attrs, num(x), num(y),
                         num(r));
  }
}

std::string style() {
  return R"(<style>
text{font-family:sans-serif;font-size:11px;fill:#222}
.title{font-size:14px;font-weight:bold}
.axis-label{font-size:12px}
.grid{stroke:#e4e4e4;stroke-width:1}
.tick{stroke:#888;stroke-width:1}
.frame{fill:none;stroke:#555;stroke-width:1}
.roof{stroke:#444;stroke-width:1.5;fill:none}
.roof.bandwidth{stroke:#6b6b6b}
.roof.primary{stroke:#111;stroke-width:2.5}
.roof.theoretical{stroke:#999;stroke-dasharray:5 4}
.roof-label{font-size:10px;fill:#444}
.ridge{fill:#fff;stroke:#111;stroke-width:1.5}
.bar{stroke-width:1.2}
.link{fill:none;stroke-width:1.3}
.link.compare{stroke:#555;stroke-dasharray:6 4}
.marker{stroke:#000;stroke-width:0.6}
.legend-box{fill:#fff;stroke:#bbb}
.note{font-size:10px;fill:#555}
.point-label{font-size:9px;fill:#333}
.point-sublabel{font-size:8px;fill:#666}
.leader{stroke:#999;stroke-width:0.6}
</style>
)";
}

constexpr double kMarkerR = 4.5;
constexpr double kRoofFont = 10, kPointFont = 9, kSubFont = 8;

struct Writer {
  const Figure& f;
  const SvgOptions& o;
  Frame fr;
  std::string out;
  LabelLayout layout{fr.left, fr.top, fr.right, fr.bottom};
  size_t labels_left_out = 0;

  // Labels keep off the markers: each marker's square is taken before any label is placed.
  void reserve_markers() {
    for (const auto& mk : f.markers)
      layout.take({fr.px(mk.x), fr.py(mk.y), kMarkerR + 1, kMarkerR + 1, 0});
  }

  void label_text(const char* cls, double x, double y, const std::string& text,
                  const std::string& transform = "") {
    if (transform.empty())
      out += fmt::format("<text class=\"{}\" x=\"{}\" y=\"{}\">{}</text>\n", cls, num(x), num(y),
                         xml_escape(text));
    else
      out += fmt::format("<text class=\"{}\" transform=\"{}\">{}</text>\n", cls, transform,
                         xml_escape(text));
  }

  void axes() {
    out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                       num(fr.left), num(fr.top), num(fr.right - fr.left),
                       num(fr.bottom - fr.top));
    for (int e = int(std::ceil(fr.lx0 - 1e-9)); e <= int(std::floor(fr.lx1 + 1e-9)); ++e) {
      double x = fr.px(std::pow(10.0, e));
      out += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>"
                         "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                         num(x), num(fr.top), num(fr.bottom), num(fr.bottom + 16),
                         decade_label(e));
      for (int k = 2; k < 10 && std::log10(k) + e < fr.lx1 + 1e-9; ++k) {
        double xm = fr.px(k * std::pow(10.0, e));
        out += fmt::format("<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                           num(xm), num(fr.bottom), num(fr.bottom - 4));
      }
    }
    for (int e = int(std::ceil(fr.ly0 - 1e-9)); e <= int(std::floor(fr.ly1 + 1e-9)); ++e) {
      double y = fr.py(std::pow(10.0, e));
      out += fmt::format("<line class=\"grid\" x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>"
                         "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
                         num(y), num(fr.left), num(fr.right), num(fr.left - 6), num(y + 4),
                         decade_label(e));
      for (int k = 2; k < 10 && std::log10(k) + e < fr.ly1 + 1e-9; ++k) {
        double ym = fr.py(k * std::pow(10.0, e));
        out += fmt::format("<line class=\"tick\" x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>",
                           num(ym), num(fr.left), num(fr.left + 4));
      }
    }
    out += "\n";
    out += fmt::format("<text class=\"title\" x=\"{}\" y=\"24\">{}</text>\n", num(fr.left),
                       xml_escape(f.title));
    out += fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}"
                       "</text>\n",
                       num((fr.left + fr.right) / 2), num(fr.bottom + 36), xml_escape(f.x_label));
    out += fmt::format("<text class=\"axis-label\" transform=\"translate(20 {}) rotate(-90)\" "
                       "text-anchor=\"middle\">{}</text>\n",
                       num((fr.top + fr.bottom) / 2), xml_escape(f.y_label));
  }

  // Labels: measured compute roofs near the right end, theoretical ones near the left end,
  // above or below their line; measured bandwidth labels near the lower end of their line,
  // theoretical near the middle, along it. Each takes the first place that covers no marker
  // and no other label, or is left out (the line keeps its tooltip).
  void compute_label(const RoofLine& r, const std::string& text) {
    const double w = text_width(text, kRoofFont), y = fr.py(r.y0);
    const double x0 = fr.px(r.x0);
    std::vector<double> xs = r.theoretical
                                 ? std::vector<double>{x0 + 4, x0 + 0.3 * (fr.right - x0), x0 + 0.6 * (fr.right - x0)}
                                 : std::vector<double>{fr.right - 4 - w, fr.right - 4 - w - 0.3 * (fr.right - x0),
                                                       x0 + 4};
    std::vector<std::pair<double, double>> at;
    for (double x : xs)
      for (double by : {y - 4, y + 12}) at.emplace_back(x, by);
    std::vector<Box> boxes;
    for (const auto& [x, by] : at) boxes.push_back(text_box(text, x, by, kRoofFont));
    if (auto k = layout.place(boxes)) label_text("roof-label", at[*k].first, at[*k].second, text);
  }

  void bandwidth_label(const RoofLine& r, const std::string& text) {
    double x0 = fr.px(r.x0), y0 = fr.py(r.y0), x1 = fr.px(r.x1), y1 = fr.py(r.y1);
    double angle = std::atan2(y1 - y0, x1 - x0) * 180 / M_PI;
    std::vector<double> ts = r.theoretical ? std::vector<double>{0.55, 0.4, 0.7, 0.25, 0.85}
                                           : std::vector<double>{0.08, 0.2, 0.32, 0.44, 0.56, 0.68};
    std::vector<Box> boxes;
    for (double t : ts)
      boxes.push_back(text_box(text, x0 + t * (x1 - x0), y0 + t * (y1 - y0) - 4, kRoofFont, angle));
    if (auto k = layout.place(boxes)) {
      double t = ts[*k];
      label_text("roof-label", 0, 0, text,
                 fmt::format("translate({} {}) rotate({})", num(x0 + t * (x1 - x0)),
                             num(y0 + t * (y1 - y0) - 4), num(angle)));
    }
  }

  void ridge_label(const Ridge& r) {
    const double x = fr.px(r.x), y = fr.py(r.y), w = text_width(r.label, kRoofFont);
    const std::pair<double, double> at[] = {{x + 6, y + 14}, {x + 6, y - 8}, {x - 6 - w, y + 14}, {x - 6 - w, y - 8}};
    std::vector<Box> boxes;
    for (const auto& [lx, ly] : at) boxes.push_back(text_box(r.label, lx, ly, kRoofFont));
    if (auto k = layout.place(boxes)) label_text("roof-label", at[*k].first, at[*k].second, r.label);
  }

  void roofs() {
    out += "<g class=\"roofs\">\n";
    for (const auto& r : f.roofs) {
      std::string cls = fmt::format("roof {} {}{}", r.compute ? "compute" : "bandwidth",
                                    r.theoretical ? "theoretical" : "measured",
                                    r.primary ? " primary" : "");
      double x0 = fr.px(r.x0), y0 = fr.py(r.y0), x1 = fr.px(r.x1), y1 = fr.py(r.y1);
      out += fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>{}"
                         "</title></line>\n",
                         cls, num(x0), num(y0), num(x1), num(y1), xml_escape(r.label));
    }
    for (const auto& r : f.ridges) {
      out += marker_shape(3, fr.px(r.x), fr.py(r.y), 4, "class=\"ridge\"") + "\n";
      layout.take({fr.px(r.x), fr.py(r.y), 5.5, 5.5, 0});
    }
    // Labels of the primary roofs first: they are the ones the bound is read from.
    for (bool primary : {true, false})
      for (const auto& r : f.roofs)
        if (r.primary == primary) (r.compute ? compute_label(r, r.label) : bandwidth_label(r, r.label));
    for (const auto& r : f.ridges) ridge_label(r);
    out += "</g>\n";
  }

  void links() {
    for (const auto& l : f.links) {
      std::string pts;
      for (const auto& [x, y] : l.points)
        pts += fmt::format("{}{},{}", pts.empty() ? "" : " ", num(fr.px(x)), num(fr.py(y)));
      if (l.dashed)
        out += fmt::format("<polyline class=\"link compare\" points=\"{}\"/>\n", pts);
      else
        out += fmt::format("<polyline class=\"link series\" stroke=\"{}\" points=\"{}\"/>\n",
                           palette(f.series[size_t(l.series)].color), pts);
    }
  }

  void bar(double x0, double y0, double x1, double y1, const char* color, bool vertical) {
    out += fmt::format("<line class=\"bar\" stroke=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" "
                       "y2=\"{}\"/>",
                       color, num(x0), num(y0), num(x1), num(y1));
    // Caps.
    for (auto [x, y] : {std::pair{x0, y0}, std::pair{x1, y1}})
      out += vertical ? fmt::format("<line class=\"bar\" stroke=\"{}\" x1=\"{}\" y1=\"{}\" "
                                    "x2=\"{}\" y2=\"{}\"/>",
                                    color, num(x - 3), num(y), num(x + 3), num(y))
                      : fmt::format("<line class=\"bar\" stroke=\"{}\" x1=\"{}\" y1=\"{}\" "
                                    "x2=\"{}\" y2=\"{}\"/>",
                                    color, num(x), num(y - 3), num(x), num(y + 3));
  }

  // A dotted stem from the marker to the nearer end of its bar when the marker lies outside
  // the bar (P over all the time against the typical calls' P): the bar stays on its point.
  void stem(double x0, double y0, double x1, double y1, const char* color) {
    out += fmt::format("<line class=\"bar stem\" stroke=\"{}\" stroke-dasharray=\"2 2\" x1=\"{}\" "
                       "y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                       color, num(x0), num(y0), num(x1), num(y1));
  }

  void bars(const Marker& mk, double x, double y, const char* color) {
    if (mk.y_lo) {
      double a = fr.py(*mk.y_lo), b = fr.py(*mk.y_hi);  // a below b on the page
      bar(x, a, x, b, color, true);
      if (y > a) stem(x, y, x, a, color);
      if (y < b) stem(x, y, x, b, color);
    }
    if (mk.x_lo) {
      double a = fr.px(*mk.x_lo), b = fr.px(*mk.x_hi);
      bar(a, y, b, y, color, false);
      if (x < a) stem(x, y, a, y, color);
      if (x > b) stem(x, y, b, y, color);
    }
  }

  // The point's name and sub-label as one block, at the first free place around the marker;
  // the sub-label alone when the block finds none; else left out (the tooltip has it all).
  void point_label(const Marker& mk, double x, double y) {
    const std::string main = clip_to_width(mk.short_label, kPointFont, 180);
    const std::string sub = clip_to_width(mk.sub_label, kSubFont, 180);
    if (main.empty() && sub.empty()) return;
    if (place_block(main, sub, x, y)) return;
    if (!main.empty() && !sub.empty() && place_block("", sub, x, y)) return;
    ++labels_left_out;
  }

  bool place_block(const std::string& main, const std::string& sub, double x, double y) {
    const double w = std::max(main.empty() ? 0 : text_width(main, kPointFont),
                              sub.empty() ? 0 : text_width(sub, kSubFont)) + 2;
    const double main_h = main.empty() ? 0 : 1.21 * kPointFont + 2;
    const double h = main_h + (sub.empty() ? 0 : 1.21 * kSubFont + 2);
    const double d = kMarkerR + 3;
    std::vector<std::pair<double, double>> corner = {  // top left of the block
        {x + d, y - h / 2}, {x - d - w, y - h / 2}, {x - w / 2, y - d - h}, {x - w / 2, y + d},
        {x + d - 2, y - d + 2 - h}, {x + d - 2, y + d - 2}, {x - d + 2 - w, y - d + 2 - h},
        {x - d + 2 - w, y + d - 2}, {x + 2 * d, y - h / 2}, {x - 2 * d - w, y - h / 2}};
    const size_t adjacent = corner.size();
    // Farther up and down beside a crowd of markers, joined to the marker by a leader line.
    for (int k = 1; k <= 5; ++k)
      for (int sign : {-1, 1})
        for (double bx : {x + 3 * d, x - 3 * d - w}) corner.emplace_back(bx, y - h / 2 + sign * k * (h + 3));
    std::vector<Box> boxes;
    for (const auto& [bx, by] : corner) boxes.push_back({bx + w / 2, by + h / 2, w / 2, h / 2, 0});
    auto k = layout.place(boxes);
    if (!k) return false;
    const double bx = corner[*k].first + 1, by = corner[*k].second;
    if (*k >= adjacent) {
      const double ex = bx > x ? bx - 2 : bx + w - 1, ey = by + h / 2;
      out += fmt::format("<line class=\"leader\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(x), num(y),
                         num(ex), num(ey));
    }
    if (!main.empty()) label_text("point-label", bx, by + 0.95 * kPointFont + 1, main);
    if (!sub.empty()) label_text("point-sublabel", bx, by + main_h + 0.95 * kSubFont + 1, sub);
    return true;
  }

  void markers() {
    out += "<g class=\"points\">\n";
    for (const auto& mk : f.markers) {
      const auto& s = f.series[size_t(mk.series)];
      const char* color = palette(s.color);
      double x = fr.px(mk.x), y = fr.py(mk.y);
      out += fmt::format("<g class=\"point\" data-tip=\"{}\">", xml_escape(mk.tooltip));
      bars(mk, x, y, color);
      out += marker_shape(s.shape, x, y, kMarkerR,
                          fmt::format("class=\"marker\" fill=\"{}\"", color));
      out += fmt::format("<title>{}</title></g>\n", xml_escape(mk.tooltip));
    }
    // Labels after every marker is drawn, in the order of the rows (longest time first).
    for (const auto& mk : f.markers) point_label(mk, fr.px(mk.x), fr.py(mk.y));
    out += "</g>\n";
  }

  void legend() {
    double x = fr.right + 16, y = fr.top;
    double h = 22 + 16.0 * double(f.series.size()) + (f.links.empty() ? 0 : 0);
    out += fmt::format("<g class=\"legend\"><rect class=\"legend-box\" x=\"{}\" y=\"{}\" "
                       "width=\"{}\" height=\"{}\"/>\n",
                       num(x), num(y), num(o.width - x - 8), num(h));
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">points</text>\n",
                       num(x + 8), num(y + 15));
    for (size_t i = 0; i < f.series.size(); ++i) {
      double yi = y + 30 + 16.0 * double(i);
      out += marker_shape(f.series[i].shape, x + 14, yi - 4, 4,
                          fmt::format("class=\"legend-marker\" fill=\"{}\" stroke=\"#000\" "
                                      "stroke-width=\"0.6\"",
                                      palette(f.series[i].color)));
      out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(x + 24), num(yi),
                         xml_escape(clip_to_width(f.series[i].name, 11, o.width - x - 38)));
    }
    if (labels_left_out > 0)
      out += fmt::format("<text class=\"note labels-left-out\" x=\"{}\" y=\"{}\">{} point label{} left out "
                         "(no free place):</text>\n<text class=\"note\" x=\"{}\" y=\"{}\">hover the points "
                         "for their names</text>\n",
                         num(x), num(y + h + 16), labels_left_out, labels_left_out == 1 ? "" : "s", num(x),
                         num(y + h + 29));
    out += "</g>\n";
  }

  void notes() {
    double y = fr.bottom + 54;
    std::vector<std::string> lines = f.notes;
    if (!f.unplotted.empty()) lines.push_back(unplotted_note(f));
    for (const auto& n : lines) {
      out += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\">{}</text>\n", num(fr.left),
                         num(y), xml_escape(clip_to_width(n, 10, o.width - fr.left - 8)));
      y += 13;
    }
  }
};

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': out += "&#10;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_svg(const Figure& f, const SvgOptions& o) {
  Frame fr;
  fr.right = o.width - 250;
  fr.bottom = o.height - 60 - 13.0 * double(f.notes.size() + (f.unplotted.empty() ? 0 : 1));
  fr.lx0 = std::log10(f.x_min);
  fr.lx1 = std::log10(f.x_max);
  fr.ly0 = std::log10(f.y_min);
  fr.ly1 = std::log10(f.y_max);
  Writer w{f, o, fr, {}};
  if (o.standalone) w.out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  w.out += fmt::format("<svg {}width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                       "class=\"roofline\">\n",
                       o.standalone ? "xmlns=\"http://www.w3.org/2000/svg\" " : "", o.width,
                       o.height, o.width, o.height);
  w.out += style();
  w.out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n",
                       o.width, o.height);
  w.axes();
  w.reserve_markers();
  w.roofs();
  w.links();
  w.markers();
  w.legend();
  w.notes();
  w.out += "</svg>\n";
  return w.out;
}

}  // namespace roofprof::report
