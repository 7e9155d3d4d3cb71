#include "report/label_layout.hpp"

#include <array>
#include <cmath>
#include <cstring>

namespace roofprof::report {
namespace {

// Advance widths in em of DejaVu Sans (the usual sans-serif of Linux browsers), rounded up;
// faces such as Liberation Sans or Arial are narrower, so the estimate errs wide.
double glyph_em(unsigned char c) {
  if (c >= 0x80) return 1.0;  // non-ASCII: as wide as the widest
  if (std::strchr("ijlI|.,:;'!", c)) return 0.34;
  if (std::strchr("ftr()[]{}/\\ -\"", c)) return 0.45;
  if (std::strchr("mwMW@%", c)) return 1.0;
  if (std::strchr("<>=+~#&", c)) return 0.84;
  if (c >= 'A' && c <= 'Z') return 0.8;
  return 0.65;  // other lower case letters, digits, _ * ? ...
}

using Point = std::array<double, 2>;

std::array<Point, 4> corners(const Box& b) {
  const double a = b.angle_deg * M_PI / 180, c = std::cos(a), s = std::sin(a);
  std::array<Point, 4> out;
  const double dx[] = {-1, 1, 1, -1}, dy[] = {-1, -1, 1, 1};
  for (int i = 0; i < 4; ++i) {
    double x = dx[i] * b.half_w, y = dy[i] * b.half_h;
    out[size_t(i)] = {b.cx + x * c - y * s, b.cy + x * s + y * c};
  }
  return out;
}

// Separating axis test on the edges' normals of both boxes.
bool separated_on(const std::array<Point, 4>& p, const std::array<Point, 4>& q, const Point& axis) {
  double pmin = 1e300, pmax = -1e300, qmin = 1e300, qmax = -1e300;
  for (const auto& v : p) {
    double d = v[0] * axis[0] + v[1] * axis[1];
    pmin = std::fmin(pmin, d), pmax = std::fmax(pmax, d);
  }
  for (const auto& v : q) {
    double d = v[0] * axis[0] + v[1] * axis[1];
    qmin = std::fmin(qmin, d), qmax = std::fmax(qmax, d);
  }
  return pmax <= qmin || qmax <= pmin;
}

}  // namespace

double text_width(const std::string& text, double font_px) {
  double em = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    em += glyph_em(c);
  }
  return em * font_px;
}

Box text_box(const std::string& text, double x, double y, double font_px, double angle_deg) {
  // Ascent and descent of the face: the line box spans y - 0.93 em .. y + 0.24 em.
  const double w = text_width(text, font_px) + 2, top = -0.95 * font_px - 1, bottom = 0.26 * font_px + 1;
  const double lx = w / 2 - 1, ly = (top + bottom) / 2;  // centre in the text's own frame
  const double a = angle_deg * M_PI / 180;
  return {x + lx * std::cos(a) - ly * std::sin(a), y + lx * std::sin(a) + ly * std::cos(a), w / 2,
          (bottom - top) / 2, angle_deg};
}

bool overlap(const Box& a, const Box& b) {
  const auto p = corners(a), q = corners(b);
  for (const auto* poly : {&p, &q})
    for (int i = 0; i < 2; ++i) {
      const Point& u = (*poly)[size_t(i)];
      const Point& v = (*poly)[size_t(i + 1)];
      if (separated_on(p, q, {v[1] - u[1], u[0] - v[0]})) return false;
    }
  return true;
}

LabelLayout::LabelLayout(double left, double top, double right, double bottom)
    : left_(left), top_(top), right_(right), bottom_(bottom) {}

bool LabelLayout::fits(const Box& b) const {
  for (const auto& c : corners(b))
    if (c[0] < left_ || c[0] > right_ || c[1] < top_ || c[1] > bottom_) return false;
  for (const auto& t : taken_)
    if (overlap(b, t)) return false;
  return true;
}

std::optional<size_t> LabelLayout::place(const std::vector<Box>& candidates) {
  for (size_t i = 0; i < candidates.size(); ++i)
    if (fits(candidates[i])) {
      taken_.push_back(candidates[i]);
      return i;
    }
  return std::nullopt;
}

std::string clip_to_width(const std::string& text, double font_px, double max_px) {
  if (text_width(text, font_px) <= max_px) return text;
  const std::string ellipsis = "\xE2\x80\xA6";
  std::string cut = text;
  while (!cut.empty() && text_width(cut + ellipsis, font_px) > max_px) {
    // One glyph off the end: its continuation bytes, then its first byte.
    while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
    if (!cut.empty()) cut.pop_back();
  }
  return cut + ellipsis;
}

}  // namespace roofprof::report
