// The sampling loop shared by every measurement (declared in context.hpp).
#include <algorithm>
#include <cmath>

#include "ceilings/context.hpp"
#include "ceilings/frequency.hpp"
#include "ceilings/stats.hpp"

namespace roofprof::ceilings {

uint64_t calibrate_passes(const Timer& timer, double target_s,
                          const std::function<void(uint64_t)>& work) {
  uint64_t passes = 1;
  for (;;) {
    const uint64_t t0 = timer.start();
    work(passes);
    const double s = timer.seconds(timer.stop() - t0);
    // Trust a trial of at least a tenth of the target (far above the timer's cost).
    if (s >= target_s / 10 || passes >= (uint64_t(1) << 40))
      return std::max<uint64_t>(1, uint64_t(std::ceil(double(passes) * target_s / s)));
    passes *= s > 0 ? std::clamp<uint64_t>(uint64_t(target_s / 10 / s) + 1, 2, 64) : 64;
  }
}

std::vector<double> timed_samples(Team& team, const Timer& timer, int samples, uint64_t passes,
                                  const std::function<void(int, uint64_t)>& work,
                                  const std::function<void(int, int)>& after) {
  const int n = team.size();
  const int total = samples + 1;  // sample 0 is the warm-up
  std::vector<uint64_t> start(size_t(total) * n), stop(size_t(total) * n);
  team.run([&](int m) {
    for (int s = 0; s < total; ++s) {
      team.barrier();
      start[size_t(s) * n + m] = timer.start();
      work(m, passes);
      stop[size_t(s) * n + m] = timer.stop();
      if (after && s > 0) after(m, s - 1);
    }
  });
  std::vector<double> seconds;
  for (int s = 1; s < total; ++s) {
    const auto b = start.begin() + ptrdiff_t(s) * n;
    const auto e = stop.begin() + ptrdiff_t(s) * n;
    seconds.push_back(timer.seconds(*std::max_element(e, e + n) - *std::min_element(b, b + n)));
  }
  return seconds;
}

std::vector<LevelPlan> wanted_levels(const Context& ctx, int threads) {
  std::vector<LevelPlan> out;
  const auto& want = ctx.options.levels;
  for (const LevelPlan& lp : plan_levels(ctx.caches, threads, ctx.dram_total))
    if (want.empty() || std::find(want.begin(), want.end(), lp.level) != want.end())
      out.push_back(lp);
  return out;
}

Spread measure_clock(Team& team, const Timer& timer, int samples) {
  std::vector<double> ghz(size_t(samples) * team.size());
  team.run([&](int m) {
    measure_ghz(timer);  // warm-up: let the clock ramp
    for (int s = 0; s < samples; ++s) {
      team.barrier();
      ghz[size_t(s) * team.size() + m] = measure_ghz(timer);
    }
  });
  return summarize(ghz);
}

}  // namespace roofprof::ceilings
