#pragma once
// Time by region as horizontal bars, one per region and per group of its calls (in the
// table's order): what the HTML page shows instead of a roofline that has no point (a result
// with times only). Classes tests rely on: "time-chart" (the <svg>), "time-bar" (one <rect>
// per row with a time), "time-label".
#include <string>

#include "report/model.hpp"

namespace roofprof::report {

std::string render_time_chart(const Model& model, int width = 900);

}  // namespace roofprof::report
