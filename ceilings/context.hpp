#pragma once
// What every measurement step shares, and the sampling loop they all use.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ceilings/measure.hpp"
#include "ceilings/plan.hpp"
#include "ceilings/team.hpp"
#include "ceilings/theory.hpp"
#include "ceilings/timer.hpp"
#include "ceilings/types.hpp"

namespace roofprof::ceilings {

struct Context {
  const Timer& timer;
  const MeasureOptions& options;
  std::optional<CoreModel> model;
  std::vector<CacheInfo> caches;
  uint64_t dram_total = 0;
  double sample_s = 0.02;
  int samples = 5;
  void progress(const std::string& line) const {
    if (options.progress) options.progress(line);
  }
};

// Passes of `work` (run on the calling thread) that take about `target_s` seconds.
uint64_t calibrate_passes(const Timer& timer, double target_s,
                          const std::function<void(uint64_t passes)>& work);

// One warm-up sample (discarded) and `samples` timed samples of work(member, passes) on every
// member, started together by the team's spin barrier. Returns each sample's wall time in
// seconds: earliest start to latest stop. `after(member, sample)` runs untimed after each one.
std::vector<double> timed_samples(Team& team, const Timer& timer, int samples, uint64_t passes,
                                  const std::function<void(int, uint64_t)>& work,
                                  const std::function<void(int, int)>& after = nullptr);

// Levels of plan_levels() that the options ask for.
std::vector<LevelPlan> wanted_levels(const Context& ctx, int threads);

// Core clock of each member, `samples` readings, summarised over members and readings.
Spread measure_clock(Team& team, const Timer& timer, int samples);

std::vector<ComputeCeiling> measure_compute(const Context& ctx, Team& team);
std::vector<BandwidthCeiling> measure_bandwidth(const Context& ctx, Team& team, double ghz);
std::vector<LatencyCeiling> measure_latency(const Context& ctx, Team& single, double ghz);
std::vector<SweepPoint> measure_sweep(const Context& ctx, Team& single);
// The hierarchy as one thread measures it (ceilings/knees.hpp), matched to ctx.caches (the
// reported levels); the sweep goes at most to `limit` bytes (hierarchy_sweep_limit).
std::vector<MeasuredCache> measure_hierarchy(const Context& ctx, Team& single, uint64_t limit);

}  // namespace roofprof::ceilings
