#pragma once
// Machine-readable reports: CSV with one tidy row per region and per group (for pandas or R),
// and JSON with the same rows plus the roofs and notes. Unknown numbers are empty CSV fields
// and JSON nulls.
#include <nlohmann/json.hpp>
#include <string>

#include "report/model.hpp"

namespace roofprof::report {

std::string render_csv(const Model& model);
nlohmann::ordered_json report_json(const Model& model);

}  // namespace roofprof::report
