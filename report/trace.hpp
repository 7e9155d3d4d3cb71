#pragma once
// roofprof report --trace: the region instances of result files (result::Instance) as Chrome
// trace events (the Trace Event Format's JSON object form), which Perfetto and chrome://tracing
// show as a timeline: one "X" (complete) event per instance on its thread, one per interval a
// region was open in a process (scope=process), "M" (metadata) events naming processes and
// threads. Times in microseconds from each run's first instance; W, Q, T, P as arguments,
// unknown ones left out.
#include <nlohmann/json.hpp>
#include <vector>

#include "report/merge.hpp"

namespace roofprof::report {

// UserError when an input recorded no instances (Run::instances_per_thread null).
nlohmann::ordered_json chrome_trace(const std::vector<Input>& inputs);

// The instances the inputs' runs left out (Region::instances_left_out, summed).
uint64_t instances_left_out(const std::vector<Input>& inputs);

}  // namespace roofprof::report
