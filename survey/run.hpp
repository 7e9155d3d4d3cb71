#pragma once
// The sampled run of `roofprof survey`: the program started by the supervisor (like every
// mode), sampled from its exec to its end, under the signal policy (supervisor/signals.hpp).
#include <optional>
#include <string>
#include <vector>

#include "supervisor/ending.hpp"
#include "survey/sampler.hpp"

namespace roofprof::survey {

struct SampledRun {
  Samples samples;
  supervisor::Ending ending;
  bool complete = true;  // false: a signal to roofprof ended the run early
  double wall_time_s = 0;
};

// Throws UserError when the program cannot be started or sampled. `copy_stacks`: unwind with
// CFI (Sampler).
SampledRun sample_program(const std::vector<std::string>& argv, unsigned rate_hz, bool copy_stacks);

}  // namespace roofprof::survey
