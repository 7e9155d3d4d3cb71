#pragma once
// How a region's time and work spread over the threads that called it (load imbalance).
#include <optional>
#include <vector>

#include "result/result.hpp"

namespace roofprof::result {

// min, median, max and mean of `values`; all 0 for none.
Spread spread_of(std::vector<double> values);

// Over the threads of `parts` that made calls: time and, where every such thread's is known,
// work. Null for fewer than two such threads.
std::optional<Balance> balance_of(const std::vector<ThreadPart>& parts);

// Whether the region is flagged: a time or work imbalance (max / mean) above kImbalanceFlagged.
bool imbalanced(const Balance& b);

}  // namespace roofprof::result
