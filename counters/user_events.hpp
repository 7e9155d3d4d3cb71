#pragma once
// `--events` for experts: raw libpfm4 event strings with optional weights, e.g.
//   skx::FP_ARITH_INST_RETIRED:SCALAR*1,skx::FP_ARITH_INST_RETIRED:4_FLOPS*4
// Weighted events form W (= sum of weight * count); unweighted ones are just counted.
#include <string>
#include <vector>

#include "counters/event_set.hpp"

namespace roofprof::counters {

// `specs`: one event per element (a comma-separated list is split too). Counter limits come
// from `base` (the detected set) or default to 4. Throws UserError on a malformed spec.
EventSet event_set_from_user(const std::vector<std::string>& specs, const EventSet* base);

}  // namespace roofprof::counters
