#pragma once
// The result's region instances (result::Instance, docs/result-schema.md "instances") from the
// instances the aggregation kept (regions::Aggregate::kept): numbered as the result numbers
// threads, timed from each run's first instance, with W and Q where a function gives them.
#include <functional>
#include <string>
#include <vector>

#include "regions/aggregate.hpp"
#include "result/result.hpp"

namespace roofprof::run {

// An instance's W and Q from its deltas (backend event order): sets flops, bytes and
// flops_other_threads of `into` where they are known; leaves them null otherwise.
using InstanceQuantities = std::function<void(const regions::KeptInstance& kept, result::Instance& into)>;

// Sets regions[id].instances and instances_left_out (regions in planner order) and
// res.instances_per_thread. `quantities` null: W and Q unknown per instance.
void record_instances(result::Run& res, const regions::Aggregator& agg, const InstanceQuantities& quantities);

// The emulated run's W and Q for each instance of `r`: its instance at the same position on the
// same thread number (the emulated run is one run, matched to each native run). Returns false,
// leaving them null, when the runs' instances do not line up (other threads or counts).
bool match_emulated_instances(result::Region& r, const regions::Aggregate& emulated,
                              const InstanceQuantities& quantities);

}  // namespace roofprof::run
