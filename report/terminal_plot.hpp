#pragma once
// A Figure drawn with Unicode on the terminal: roofs and lines in braille dots (2x4 per
// character cell; theoretical roofs and compare lines dotted), each point a letter, ridge
// points as ◆, decade ticks on both axes, then the legend and the roofs as text.
#include <string>

#include "report/figure.hpp"

namespace roofprof::report {

struct TerminalPlotOptions {
  int width = 64;   // character cells of the plot area
  int height = 18;
};

std::string render_terminal_plot(const Figure& f, const TerminalPlotOptions& options = {});

}  // namespace roofprof::report
