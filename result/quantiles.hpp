#pragma once
// Per-call time distributions: exact quartiles of a sample, and an approximate mixture of
// several distributions known only by their five-number summaries (for merging files).
#include <optional>
#include <utility>
#include <vector>

#include "result/result.hpp"

namespace roofprof::result {

// min, quartiles by linear interpolation between order statistics (R type 7, numpy's
// default), max. Null for an empty sample. Reorders `values`.
std::optional<Stats> five_numbers(std::vector<double>& values);

// The quartiles of a mixture of distributions, each given by its five-number summary and its
// weight (number of calls). Each distribution's CDF is taken as piecewise linear through
// (min,0) (q1,.25) (median,.5) (q3,.75) (max,1); the mixture's quantiles are found by
// bisection. Exact for min and max; an approximation for q1, median and q3 (exact when there
// is only one distribution). Null when the total weight is 0.
std::optional<Stats> mix(const std::vector<std::pair<Stats, double>>& parts);

}  // namespace roofprof::result
