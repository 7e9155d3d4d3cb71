#pragma once
// Where labels go in a drawn figure without covering each other: boxes (possibly rotated, as
// a bandwidth roof's label along its line) are taken one by one; a label tries its candidate
// places in order and takes the first that overlaps nothing taken and stays inside the area.
#include <optional>
#include <string>
#include <vector>

namespace roofprof::report {

// A rectangle rotated by `angle_deg` about its centre (SVG's y axis points down).
struct Box {
  double cx = 0, cy = 0, half_w = 0, half_h = 0, angle_deg = 0;
};

// The box of a text line drawn at (x, baseline y) with text-anchor start, rotated about
// (x, y) by angle_deg, in a sans-serif face of `font_px` (an estimate that errs wide).
Box text_box(const std::string& text, double x, double y, double font_px, double angle_deg = 0);
// Estimated advance width of `text` (UTF-8; "…" counts as one glyph).
double text_width(const std::string& text, double font_px);

bool overlap(const Box& a, const Box& b);

class LabelLayout {
 public:
  // The area labels must stay inside (the plot's frame).
  LabelLayout(double left, double top, double right, double bottom);
  void take(const Box& b) { taken_.push_back(b); }
  bool fits(const Box& b) const;
  // The first candidate that fits, taken; null when none does.
  std::optional<size_t> place(const std::vector<Box>& candidates);

 private:
  double left_, top_, right_, bottom_;
  std::vector<Box> taken_;
};

// `text` cut to fit `max_px` by text_width, ending in "…" when cut.
std::string clip_to_width(const std::string& text, double font_px, double max_px);

}  // namespace roofprof::report
