#pragma once
// Checks of numeric options (run --repeat, --max-probe-slowdown, survey --top, --min-percent):
// a finite number within bounds, said in words ("--repeat: must be at least 1, not 0") instead
// of CLI11's range with a 300-digit maximum; nan and inf are refused.
#include <CLI/CLI.hpp>

namespace roofprof::cli {

// A finite number of at least `min`.
CLI::Validator at_least(double min);
// A finite number from `min` to `max`.
CLI::Validator between(double min, double max);

}  // namespace roofprof::cli
