#pragma once
// Aggregated region instances + the regions the planner created -> the result file's regions.
#include <string>
#include <vector>

#include "counters/backend.hpp"
#include "probes/plan.hpp"
#include "regions/aggregate.hpp"
#include "result/result.hpp"

namespace roofprof::cli {

std::vector<result::Region> assemble_regions(const probes::Planner& planner, const regions::Aggregator& agg,
                                             const std::vector<counters::EventInfo>& events,
                                             const std::string& counter_source);

}  // namespace roofprof::cli
