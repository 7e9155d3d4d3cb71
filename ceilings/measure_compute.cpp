// Peak flop/s of every compute kernel this CPU supports, on one team.
#include <string>

#include "ceilings/context.hpp"
#include "ceilings/frequency.hpp"
#include "ceilings/kernel_registry.hpp"
#include "ceilings/machine.hpp"
#include "ceilings/names.hpp"
#include "ceilings/stats.hpp"

namespace roofprof::ceilings {
namespace {

bool wanted(const MeasureOptions& o, Isa isa) {
  if (o.isas.empty()) return true;
  for (Isa i : o.isas)
    if (i == isa) return true;
  return false;
}

}  // namespace

std::vector<ComputeCeiling> measure_compute(const Context& ctx, Team& team) {
  const int n = team.size();
  const int cores = physical_cores(team.cpus());
  std::vector<ComputeCeiling> out;
  std::vector<double> sink(size_t(n), 0.0);  // results, so no call can be dropped
  for (const ComputeKernel& k : compute_kernels()) {
    if (!wanted(ctx.options, k.isa) || !measured_in(ctx.options.mode, k.op)) continue;
    ctx.progress(std::string("compute ") + name(k.isa) + " " + name(k.precision) + " " +
                 name(k.op) + ", " + std::to_string(n) + " thread" + (n > 1 ? "s" : ""));
    const uint64_t iters =
        calibrate_passes(ctx.timer, ctx.sample_s, [&](uint64_t p) { sink[0] += k.run(p); });
    std::vector<double> ghz(size_t(ctx.samples) * n);
    const auto seconds = timed_samples(
        team, ctx.timer, ctx.samples, iters,
        [&](int m, uint64_t p) { sink[size_t(m)] += k.run(p); },
        [&](int m, int s) { ghz[size_t(s) * n + m] = measure_ghz_best(ctx.timer); });
    const double flops = double(k.ops_per_iter) * lanes(k.isa, k.precision) *
                         flops_per_lane(k.op) * double(iters) * n;
    ComputeCeiling c{k.isa, k.precision, k.op, n, rates(flops / 1e9, seconds), 0, std::nullopt};
    // The highest reading: time taken away from a probe only lowers it, never raises it.
    c.ghz = summarize(ghz).max;
    c.theoretical_gflops = theoretical_gflops(ctx.model, k.isa, k.precision, k.op, c.ghz, cores);
    out.push_back(c);
  }
  return out;
}

}  // namespace roofprof::ceilings
