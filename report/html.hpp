#pragma once
// One self-contained HTML file: the plot as inline SVG with tooltips, the table (click a header
// to sort), and the notes. Styles and script are inline; nothing is fetched.
#include <string>
#include <vector>

#include "report/figure.hpp"
#include "report/model.hpp"

namespace roofprof::report {

// `sections`: more HTML after the notes (the annotations of the regions that have one).
std::string render_html(const Model& model, const Figure& figure, const std::vector<std::string>& sections = {});

}  // namespace roofprof::report
