#pragma once
// The table of a survey result (roofprof survey, docs/survey.md): its hot functions with their
// sampled time, where they are, how a region of each is measured and, when the survey ran
// under emulation, their exact W (self and inclusive).
#include <string>

#include "result/result.hpp"

namespace roofprof::report {

// "" when `run` has no survey.
std::string render_survey_table(const result::Run& run);

}  // namespace roofprof::report
