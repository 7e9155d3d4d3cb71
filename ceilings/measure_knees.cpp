// The measured hierarchy (ceilings/knees.hpp): one thread's load bandwidth over growing
// prefixes of one buffer, four sizes per doubling from 4 KiB, until the last level's knee is
// matched and passed (sweep_done) or the limit is reached.
#include <algorithm>
#include <string>

#include "ceilings/buffer.hpp"
#include "ceilings/context.hpp"
#include "ceilings/kernel_registry.hpp"
#include "ceilings/knees.hpp"
#include "ceilings/plan.hpp"
#include "ceilings/stats.hpp"

namespace roofprof::ceilings {
namespace {

// Short samples: only the best of them counts, and a knee needs no more than a few per cent. At
// least 2 ms each whatever --sample-ms says: with 0.1 ms samples at load average 9 one sweep put
// L1 at 12 KiB. A process starved to a tenth of a CPU still gets knees of noise (docs/ceilings.md,
// "Limits"); only the last level's knee is ever used (ceilings/knees.hpp).
constexpr double kSampleShare = 0.1;  // of the context's sample length
constexpr double kMinSample_s = 0.002;
constexpr int kSamples = 5;

MemoryKernel load_kernel() {
  MemoryKernel load{};
  for (const MemoryKernel& k : memory_kernels())
    if (k.kind == Kind::load) load = k;
  return load;
}

std::string size_label(uint64_t bytes) {
  return bytes >= (uint64_t(1) << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

std::vector<MeasuredCache> measure_hierarchy(const Context& ctx, Team& single, uint64_t limit) {
  const MemoryKernel load = load_kernel();
  const double sample_s = std::max(ctx.sample_s * kSampleShare, kMinSample_s);
  Buffer buf(limit);
  auto* d = buf.as<double>();
  uint64_t touched = 0;  // doubles first-touched so far: the buffer grows with the sweep
  std::vector<SizeRate> sweep;
  for (uint64_t bytes : sweep_sizes(limit)) {
    ctx.progress("hierarchy: load bandwidth over " + size_label(bytes));
    const uint64_t n = bytes / 8 / kMemoryGranule * kMemoryGranule;
    if (n == 0) continue;
    for (; touched < n; ++touched) d[touched] = 1.0;
    auto work = [&](int, uint64_t passes) { load.run(nullptr, d, nullptr, nullptr, n, passes); };
    const uint64_t passes = calibrate_passes(ctx.timer, sample_s, [&](uint64_t p) { work(0, p); });
    const Spread gbs = rates(double(n) * 8 * double(passes) / 1e9, timed_samples(single, ctx.timer, kSamples, passes, work));
    sweep.push_back({n * 8, gbs.max});
    if (sweep_done(sweep, ctx.caches)) break;
  }
  return match_knees(find_knees(sweep), ctx.caches);
}

}  // namespace roofprof::ceilings
