#pragma once
// roofprof survey --backend emul: one emulated run of the program with each surveyed function
// that can be probed a region, giving each its exact W and Q, inclusive (the region) and self
// (minus the surveyed functions it called: regions/self_counts.hpp). docs/survey.md.
#include <string>
#include <vector>

#include "common/cache_info.hpp"
#include "result/result.hpp"
#include "run/emulated_pass.hpp"

namespace roofprof::run {

struct SurveyEmulation {
  bool cache_sim = true;
  bool quiet = false;
  std::vector<CacheInfo> cache;  // the simulated hierarchy (--cache-geometry); empty: the host's
};

// Fills `run.regions` (one per emulated function; time: the sampled inclusive time) and each
// function's `region` and self quantities in `run.survey`, through the emulated pass that `run`
// runs too (run/emulated_pass.hpp): its error (the caller fails with it once the survey is
// written), whether a signal to roofprof cut it short (W and Q null, `run` incomplete).
PassOutcome emulate_survey(const std::vector<std::string>& argv, const SurveyEmulation& how, result::Run& run);

}  // namespace roofprof::run
