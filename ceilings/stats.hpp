#pragma once
#include <vector>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

// Median (mean of the middle two for an even count), min and max. Empty input: samples == 0.
Spread summarize(std::vector<double> values);

// The same spread with every value divided into `numerator` (seconds -> rate); keeps order
// right: the fastest sample becomes the max rate.
Spread rates(double numerator, const std::vector<double>& seconds);

}  // namespace roofprof::ceilings
