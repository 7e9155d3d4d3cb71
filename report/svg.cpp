#include "report/svg.hpp"

#include <fmt/format.h>

#include <cmath>
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
</style>
)";
}

struct Writer {
  const Figure& f;
  const SvgOptions& o;
  Frame fr;
  std::string out;

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

  // Labels: measured compute roofs at the right end, theoretical ones at the left end; a label
  // that would overlap another goes below its line, or is left out (the line keeps its
  // tooltip). Measured bandwidth labels near the lower end, theoretical near the upper end.
  bool place_compute_label(std::vector<std::pair<double, bool>>& taken, double y, bool left,
                           double& label_y) {
    for (double candidate : {y - 4, y + 12}) {
      bool clash = false;
      for (const auto& [ty, tleft] : taken)
        clash = clash || (tleft == left && std::fabs(ty - candidate) < 12);
      if (!clash) {
        taken.emplace_back(candidate, left);
        label_y = candidate;
        return true;
      }
    }
    return false;
  }

  void roofs() {
    out += "<g class=\"roofs\">\n";
    std::vector<std::pair<double, bool>> taken;
    for (const auto& r : f.roofs) {
      std::string cls = fmt::format("roof {} {}{}", r.compute ? "compute" : "bandwidth",
                                    r.theoretical ? "theoretical" : "measured",
                                    r.primary ? " primary" : "");
      double x0 = fr.px(r.x0), y0 = fr.py(r.y0), x1 = fr.px(r.x1), y1 = fr.py(r.y1);
      out += fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>{}"
                         "</title></line>\n",
                         cls, num(x0), num(y0), num(x1), num(y1), xml_escape(r.label));
      if (r.compute) {
        double ly = 0;
        if (place_compute_label(taken, y0, r.theoretical, ly))
          out += fmt::format("<text class=\"roof-label\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}"
                             "</text>\n",
                             num(r.theoretical ? x0 + 4 : fr.right - 4), num(ly),
                             r.theoretical ? "start" : "end", xml_escape(r.label));
      } else {
        double angle = std::atan2(y1 - y0, x1 - x0) * 180 / M_PI;
        double t = r.theoretical ? 0.55 : 0.08;
        out += fmt::format("<text class=\"roof-label\" transform=\"translate({} {}) rotate({})\">"
                           "{}</text>\n",
                           num(x0 + t * (x1 - x0)), num(y0 + t * (y1 - y0) - 4), num(angle),
                           xml_escape(r.label));
      }
    }
    for (const auto& r : f.ridges) {
      double x = fr.px(r.x), y = fr.py(r.y);
      out += marker_shape(3, x, y, 4, "class=\"ridge\"") +
             fmt::format("<text class=\"roof-label\" x=\"{}\" y=\"{}\">{}</text>\n", num(x + 6),
                         num(y + 14), xml_escape(r.label));
    }
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

  void markers() {
    out += "<g class=\"points\">\n";
    for (const auto& mk : f.markers) {
      const auto& s = f.series[size_t(mk.series)];
      const char* color = palette(s.color);
      double x = fr.px(mk.x), y = fr.py(mk.y);
      out += fmt::format("<g class=\"point\" data-tip=\"{}\">", xml_escape(mk.tooltip));
      if (mk.y_lo) bar(x, fr.py(*mk.y_lo), x, fr.py(*mk.y_hi), color, true);
      if (mk.x_lo) bar(fr.px(*mk.x_lo), y, fr.px(*mk.x_hi), y, color, false);
      out += marker_shape(s.shape, x, y, 4.5,
                          fmt::format("class=\"marker\" fill=\"{}\"", color));
      out += fmt::format("<title>{}</title></g>", xml_escape(mk.tooltip));
      if (!mk.short_label.empty())
        out += fmt::format("<text class=\"point-label\" x=\"{}\" y=\"{}\">{}</text>", num(x + 6),
                           num(y + 12), xml_escape(mk.short_label));
      out += "\n";
    }
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
                         xml_escape(f.series[i].name));
    }
    out += "</g>\n";
  }

  void notes() {
    double y = fr.bottom + 54;
    for (const auto& n : f.notes) {
      out += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\">{}</text>\n", num(fr.left),
                         num(y), xml_escape(n));
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
  fr.bottom = o.height - 60 - 13.0 * double(f.notes.size());
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
  w.roofs();
  w.links();
  w.markers();
  w.legend();
  w.notes();
  w.out += "</svg>\n";
  return w.out;
}

}  // namespace roofprof::report
