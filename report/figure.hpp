#pragma once
// A roofline plot as data, drawn by the SVG, HTML and terminal renderers: log-log axes, one
// line per roof, ridge points, one marker per point with quartile bars, and lines joining a
// series (solid) or the same subject across compared files (dashed).
#include <optional>
#include <string>
#include <vector>

#include "report/model.hpp"

namespace roofprof::report {

struct RoofLine {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // data coordinates, inside the axes
  bool compute = true;
  bool theoretical = false;
  bool primary = false;
  std::string label;                      // "DRAM triad, 2 threads: 11.2 GB/s"
};

struct Ridge {
  double x = 0, y = 0;
  std::string label;                      // "ridge 4.52 flop/B"
};

struct Series {
  std::string name;                       // legend text: "dgemm_", "b.json: dgemm_"
  int color = 0;                          // palette index
  int shape = 0;                          // 0 circle, 1 square, 2 triangle, 3 diamond
  char letter = 'A';                      // terminal marker
};

struct Marker {
  double x = 0, y = 0;
  std::optional<double> x_lo, x_hi, y_lo, y_hi;  // quartile bars
  int series = 0;
  std::string label;                      // group key, level, or "" for a region
  // Drawn next to the marker: the region's name (on the first point of a series only), and
  // under it what tells the point apart within its region: the size ("1000" for
  // m=n=k=1000), the innermost caller ("<- phase_a (callers.c:12)"), the level or the rank.
  std::string short_label;
  std::string sub_label;
  std::string tooltip;                    // lines separated by '\n'
  int input = 0;                          // file (compare mode)
  std::string subject;                    // region and group key: matched across files
};

struct Link {
  std::vector<std::pair<double, double>> points;
  int series = -1;                        // colour of a series line; -1 for compare lines
  bool dashed = false;                    // same subject across files (--compare)
};

struct Figure {
  std::string title, x_label, y_label;
  double x_min = 0.01, x_max = 100, y_min = 0.1, y_max = 100;  // powers of ten
  std::vector<RoofLine> roofs;
  std::vector<Ridge> ridges;
  std::vector<Series> series;
  std::vector<Link> links;
  std::vector<Marker> markers;
  std::vector<std::string> notes;         // "not plotted: solve (W not measured)"
  // Each region or group that has no point, and why: "ddot_: 0 B at DRAM (I = W/Q is infinite)".
  std::vector<std::string> unplotted;
};

Figure build_figure(const Model& model);

// A short form of a group key for drawing: the common value when every parameter has the same
// one ("m=200,n=200,k=200" -> "200"), else the key.
std::string short_key(const std::string& key);

// One line of f.unplotted for the SVG's and the terminal's notes ("" when every row has a
// point): "not plotted: ddot_: 0 B at DRAM (I = W/Q is infinite); ...".
std::string unplotted_note(const Figure& f);

// Colour of palette index i as "#rrggbb" (series colours; the first is red).
const char* palette(int i);

}  // namespace roofprof::report
