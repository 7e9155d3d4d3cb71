// Load-to-use latency per level (Sattolo pointer chase, one element per cache line) and the
// --full working-set sweep, on a one-thread team.
#include <string>

#include "ceilings/buffer.hpp"
#include "ceilings/chase.hpp"
#include "ceilings/context.hpp"
#include "ceilings/kernel_registry.hpp"
#include "ceilings/names.hpp"
#include "ceilings/plan.hpp"
#include "ceilings/stats.hpp"

namespace roofprof::ceilings {
namespace {

constexpr uint64_t kLine = 64;

// Median, min and max nanoseconds per dependent load in a chain over `bytes`.
Spread chase_ns(const Context& ctx, Team& single, uint64_t bytes, double sample_s, int samples) {
  Buffer buf(bytes);
  link_cycle(buf.data(), bytes / kLine, kLine, 0xc0ffee);
  void* p = buf.data();
  const uint64_t steps =
      calibrate_passes(ctx.timer, sample_s, [&](uint64_t s) { p = chase(p, s * 1024); }) * 1024;
  const auto seconds =
      timed_samples(single, ctx.timer, samples, steps, [&](int, uint64_t s) { p = chase(p, s); });
  std::vector<double> ns;
  for (double s : seconds) ns.push_back(s * 1e9 / double(steps));
  return summarize(ns);
}

}  // namespace

std::vector<LatencyCeiling> measure_latency(const Context& ctx, Team& single, double ghz) {
  std::vector<LatencyCeiling> out;
  for (const LevelPlan& lp : wanted_levels(ctx, 1)) {
    ctx.progress(std::string("latency ") + name(lp.level));
    const Spread ns = chase_ns(ctx, single, lp.random_bytes_per_thread, ctx.sample_s, ctx.samples);
    out.push_back({lp.level, lp.random_bytes_per_thread, ns, ns.median * ghz});
  }
  return out;
}

std::vector<SweepPoint> measure_sweep(const Context& ctx, Team& single) {
  MemoryKernel load{};
  for (const MemoryKernel& k : memory_kernels())
    if (k.kind == Kind::load) load = k;
  std::vector<SweepPoint> out;
  const double sample_s = ctx.sample_s / 4;
  const int samples = 3;
  for (uint64_t bytes : sweep_sizes(ctx.dram_total)) {
    ctx.progress("sweep " + std::to_string(bytes >> 10) + " KiB");
    Buffer buf(bytes);
    auto* d = buf.as<double>();
    for (uint64_t i = 0; i < bytes / 8; ++i) d[i] = 1.0;
    const uint64_t n = bytes / 8 / kMemoryGranule * kMemoryGranule;
    auto work = [&](int, uint64_t passes) { load.run(nullptr, d, nullptr, nullptr, n, passes); };
    const uint64_t passes = calibrate_passes(ctx.timer, sample_s, [&](uint64_t p) { work(0, p); });
    const auto seconds = timed_samples(single, ctx.timer, samples, passes, work);
    const Spread gbs = rates(double(n) * 8 * double(passes) / 1e9, seconds);
    const Spread ns = chase_ns(ctx, single, bytes, sample_s, samples);
    out.push_back({bytes, gbs.median, ns.median});
  }
  return out;
}

}  // namespace roofprof::ceilings
