#pragma once
// One self-contained HTML file: the plot as inline SVG with tooltips, the table (click a header
// to sort), and the notes. Styles and script are inline; nothing is fetched.
#include <string>

#include "report/figure.hpp"
#include "report/model.hpp"

namespace roofprof::report {

std::string render_html(const Model& model, const Figure& figure);

}  // namespace roofprof::report
