#include "report/terminal_plot.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "report/text_table.hpp"

namespace roofprof::report {
namespace {

// Braille dot bits by (column 0..1, row 0..3) inside a cell.
constexpr uint8_t kDot[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};

std::string utf8(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += char(c);
  } else if (c < 0x800) {
    s += char(0xC0 | (c >> 6));
    s += char(0x80 | (c & 0x3F));
  } else {
    s += char(0xE0 | (c >> 12));
    s += char(0x80 | ((c >> 6) & 0x3F));
    s += char(0x80 | (c & 0x3F));
  }
  return s;
}

std::string decade_label(int e) {
  if (e >= -3 && e < 0) return fmt::format("{:.{}f}", std::pow(10.0, e), -e);
  if (e >= 0 && e <= 5) return fmt::format("{:.0f}", std::pow(10.0, e));
  return fmt::format("1e{}", e);
}

class Canvas {
 public:
  Canvas(const Figure& f, int w, int h)
      : f_(f), w_(w), h_(h), dots_(size_t(w * h), 0), text_(size_t(w * h)) {}

  // Dot coordinates of a data point (x right, y down), fractional.
  double dx(double x) const {
    return (std::log10(x) - std::log10(f_.x_min)) / (std::log10(f_.x_max) - std::log10(f_.x_min)) *
           (2 * w_ - 1);
  }
  double dy(double y) const {
    return (1 - (std::log10(y) - std::log10(f_.y_min)) /
                    (std::log10(f_.y_max) - std::log10(f_.y_min))) *
           (4 * h_ - 1);
  }

  void dot(int x, int y) {
    if (x < 0 || y < 0 || x >= 2 * w_ || y >= 4 * h_) return;
    dots_[size_t((y / 4) * w_ + x / 2)] |= kDot[x % 2][y % 4];
  }

  // A line between data points; `gap` > 0 leaves every gap-th dot out (dotted).
  void line(double x0, double y0, double x1, double y1, int gap = 0) {
    double ax = dx(x0), ay = dy(y0), bx = dx(x1), by = dy(y1);
    int steps = int(std::ceil(std::max(std::fabs(bx - ax), std::fabs(by - ay)))) + 1;
    for (int i = 0; i <= steps; ++i) {
      if (gap > 0 && i % gap == gap - 1) continue;
      double t = steps ? double(i) / steps : 0;
      dot(int(std::lround(ax + t * (bx - ax))), int(std::lround(ay + t * (by - ay))));
    }
  }

  // Text at a data point's cell (or a given cell); skipped where other text already is,
  // unless `force`.
  bool put(int col, int row, const std::string& s, bool force = false) {
    std::vector<std::string> glyphs;
    for (size_t i = 0; i < s.size();) {
      size_t n = (uint8_t(s[i]) >= 0xE0) ? 3 : (uint8_t(s[i]) >= 0xC0) ? 2 : 1;
      glyphs.push_back(s.substr(i, n));
      i += n;
    }
    if (row < 0 || row >= h_ || col < 0 || col + int(glyphs.size()) > w_) return false;
    if (!force)
      for (size_t i = 0; i < glyphs.size(); ++i)
        if (!text_[size_t(row * w_ + col + int(i))].empty()) return false;
    for (size_t i = 0; i < glyphs.size(); ++i) text_[size_t(row * w_ + col + int(i))] = glyphs[i];
    return true;
  }
  int col_of(double x) const { return int(dx(x)) / 2; }
  int row_of(double y) const { return int(dy(y)) / 4; }

  std::string row(int r) const {
    std::string out;
    for (int c = 0; c < w_; ++c) {
      const auto& t = text_[size_t(r * w_ + c)];
      uint8_t d = dots_[size_t(r * w_ + c)];
      out += !t.empty() ? t : d ? utf8(0x2800 + d) : " ";
    }
    return out;
  }

 private:
  const Figure& f_;
  int w_, h_;
  std::vector<uint8_t> dots_;
  std::vector<std::string> text_;
};

void draw(const Figure& f, Canvas& c) {
  for (const auto& r : f.roofs) c.line(r.x0, r.y0, r.x1, r.y1, r.theoretical ? 2 : 0);
  for (const auto& l : f.links)
    for (size_t i = 1; i < l.points.size(); ++i)
      c.line(l.points[i - 1].first, l.points[i - 1].second, l.points[i].first,
             l.points[i].second, l.dashed ? 3 : 0);
  for (const auto& m : f.markers) {
    if (m.y_lo) c.line(m.x, *m.y_lo, m.x, *m.y_hi);
    if (m.x_lo) c.line(*m.x_lo, m.y, *m.x_hi, m.y);
  }
  for (const auto& r : f.ridges) c.put(c.col_of(r.x), c.row_of(r.y), "◆", true);
  for (const auto& m : f.markers)
    c.put(c.col_of(m.x), c.row_of(m.y), std::string(1, f.series[size_t(m.series)].letter), true);
}

std::string axes_and_rows(const Figure& f, const Canvas& c, int w, int h) {
  // Y labels at the rows of each decade.
  std::vector<std::string> ylabel(static_cast<size_t>(h));
  size_t gutter = 0;
  for (int e = int(std::ceil(std::log10(f.y_min) - 1e-9)); e <= int(std::floor(std::log10(f.y_max) + 1e-9));
       ++e) {
    int r = std::min(h - 1, c.row_of(std::pow(10.0, e)));
    ylabel[size_t(r)] = decade_label(e);
    gutter = std::max(gutter, ylabel[size_t(r)].size());
  }
  std::string out;
  for (int r = 0; r < h; ++r) {
    const auto& l = ylabel[size_t(r)];
    out += std::string(gutter - l.size(), ' ') + l + (l.empty() ? " │" : " ┤") + c.row(r);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  // X axis: ticks and labels at each decade.
  std::vector<std::string> axis_glyphs(static_cast<size_t>(w), "─");
  std::string labels(static_cast<size_t>(w) + 8, ' ');
  for (int e = int(std::ceil(std::log10(f.x_min) - 1e-9)); e <= int(std::floor(std::log10(f.x_max) + 1e-9));
       ++e) {
    int col = std::min(w - 1, c.col_of(std::pow(10.0, e)));
    axis_glyphs[size_t(col)] = "┬";
    std::string l = decade_label(e);
    int start = std::max(0, col - int(l.size()) / 2);
    if (start + l.size() <= labels.size()) labels.replace(size_t(start), l.size(), l);
  }
  out += std::string(gutter + 1, ' ') + "└";
  for (const auto& g : axis_glyphs) out += g;
  out += "\n" + std::string(gutter + 2, ' ') + labels;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\n";
}

}  // namespace

std::string render_terminal_plot(const Figure& f, const TerminalPlotOptions& o) {
  Canvas c(f, o.width, o.height);
  draw(f, c);
  std::string out = f.title + "\n" + f.y_label + "\n";
  out += axes_and_rows(f, c, o.width, o.height);
  out += "  " + f.x_label + "\n";
  if (!f.series.empty()) {
    std::string legend = "  points:";
    for (const auto& s : f.series) legend += fmt::format("  {} {}", s.letter, s.name);
    out += legend + "\n";
  }
  if (!f.roofs.empty()) {
    out += "  roofs (dotted: theoretical; ◆ ridge):\n";
    for (const auto& r : f.roofs) out += "    " + r.label + (r.primary ? "  [bound]" : "") + "\n";
  }
  for (const auto& r : f.ridges) out += "  ◆ " + r.label + "\n";
  for (const auto& n : f.notes) out += "  " + n + "\n";
  if (!f.unplotted.empty()) out += "  " + unplotted_note(f) + "\n";
  return out;
}

}  // namespace roofprof::report
