#pragma once
// A Figure as SVG: standalone (XML declaration, xmlns, no external references) or for
// inlining in HTML. Elements carry classes tests and styles rely on: "roof" (one <line> per
// roof, plus "compute"/"bandwidth", "measured"/"theoretical", "primary"), "ridge", "marker"
// (one per point, inside a <g class="point"> with a <title> tooltip), "bar", "link"
// ("series" or "compare").
#include <string>

#include "report/figure.hpp"

namespace roofprof::report {

struct SvgOptions {
  bool standalone = true;
  int width = 900;
  int height = 600;
};

std::string render_svg(const Figure& f, const SvgOptions& options = {});

// & < > " ' as entities.
std::string xml_escape(const std::string& s);

}  // namespace roofprof::report
