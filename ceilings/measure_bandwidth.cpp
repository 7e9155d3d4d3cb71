// Streaming and random-access bandwidth at each level, on one team. Every member works on its
// own arrays, allocated and first touched by itself.
#include <memory>
#include <string>

#include "ceilings/buffer.hpp"
#include "ceilings/chase.hpp"
#include "ceilings/context.hpp"
#include "ceilings/kernel_registry.hpp"
#include "ceilings/machine.hpp"
#include "ceilings/names.hpp"
#include "ceilings/plan.hpp"
#include "ceilings/stats.hpp"

namespace roofprof::ceilings {
namespace {

constexpr uint64_t kLine = 64;
constexpr uint64_t kStreamGap = 320;  // bytes between streams: keeps them off the same set offset

// Each member's working set: one buffer cut into up to four streams.
struct Arrays {
  Buffer buffer;
  uint64_t bytes;
  explicit Arrays(uint64_t ws) : buffer(ws + 4 * kStreamGap + 4096), bytes(ws) {
    auto* d = buffer.as<double>();
    for (uint64_t i = 0; i < buffer.size() / 8; ++i) d[i] = 1.0;
  }
  // Stream s of a kernel with `streams` streams of n doubles each (nullptr past the last).
  double* stream(int s, int streams, uint64_t n) const {
    if (s >= streams) return nullptr;
    return reinterpret_cast<double*>(buffer.as<char>() + s * (n * 8 + kStreamGap));
  }
};

uint64_t doubles_per_stream(uint64_t ws, int streams) {
  return ws / 8 / uint64_t(streams) / kMemoryGranule * kMemoryGranule;
}

BandwidthCeiling make(Level level, Kind kind, Isa isa, int threads, uint64_t ws_total,
                      double read_bytes, double write_bytes, const std::vector<double>& seconds) {
  BandwidthCeiling b{level, kind, threads, isa, ws_total, {}, 0, 0, std::nullopt};
  b.gbytes_per_s = rates((read_bytes + write_bytes) / 1e9, seconds);
  const double total = read_bytes + write_bytes;
  b.read_gbytes_per_s = b.gbytes_per_s.median * read_bytes / total;
  b.write_gbytes_per_s = b.gbytes_per_s.median * write_bytes / total;
  return b;
}

std::string label(Level level, const char* what, int n) {
  return std::string("bandwidth ") + name(level) + " " + what + ", " + std::to_string(n) +
         " thread" + (n > 1 ? "s" : "");
}

// Random access over a prefix of each member's arrays (lp.random_bytes_per_thread).
BandwidthCeiling measure_random(const Context& ctx, Team& team, const LevelPlan& lp,
                                const std::vector<std::unique_ptr<Arrays>>& arrays) {
  const int n = team.size();
  ctx.progress(label(lp.level, "random", n));
  const uint64_t lines = lp.random_bytes_per_thread / kLine;  // a prefix of the arrays
  std::vector<std::vector<uint32_t>> order(static_cast<size_t>(n));
  team.run([&](int m) { order[size_t(m)] = random_order(lines, 0x5eed + uint64_t(m)); });
  std::vector<uint64_t> sink(static_cast<size_t>(n));
  auto work = [&](int m, uint64_t passes) {
    sink[size_t(m)] += random_read(arrays[size_t(m)]->buffer.data(), kLine,
                                   order[size_t(m)].data(), lines, passes);
  };
  const uint64_t passes =
      calibrate_passes(ctx.timer, ctx.sample_s, [&](uint64_t p) { work(0, p); });
  const auto seconds = timed_samples(team, ctx.timer, ctx.samples, passes, work);
  return make(lp.level, Kind::random, Isa::scalar, n, lines * kLine * n,
              double(lines * kLine) * double(passes) * n, 0, seconds);
}

}  // namespace

std::vector<BandwidthCeiling> measure_bandwidth(const Context& ctx, Team& team, double ghz) {
  const int n = team.size();
  const int cores = physical_cores(team.cpus());
  const auto kernels = memory_kernels();
  std::vector<BandwidthCeiling> out;
  for (const LevelPlan& lp : wanted_levels(ctx, n)) {
    const uint64_t ws = lp.bytes_per_thread;
    std::vector<std::unique_ptr<Arrays>> arrays(static_cast<size_t>(n));
    team.run([&](int m) { arrays[size_t(m)] = std::make_unique<Arrays>(ws); });

    for (const MemoryKernel& k : kernels) {
      ctx.progress(label(lp.level, name(k.kind), n));
      const int streams = k.read_streams + k.write_streams;
      const uint64_t len = doubles_per_stream(ws, streams);
      auto work = [&](int m, uint64_t passes) {
        const Arrays& a = *arrays[size_t(m)];
        const int w = k.write_streams;  // written stream first, then the read streams
        k.run(a.stream(0, w, len), a.stream(w, streams, len), a.stream(w + 1, streams, len),
              a.stream(w + 2, streams, len), len, passes);
      };
      const uint64_t passes =
          calibrate_passes(ctx.timer, ctx.sample_s, [&](uint64_t p) { work(0, p); });
      const auto seconds = timed_samples(team, ctx.timer, ctx.samples, passes, work);
      const double per = double(len) * 8 * double(passes) * n;
      auto b = make(lp.level, k.kind, k.isa, n, len * 8 * streams * n, per * k.read_streams,
                    per * k.write_streams, seconds);
      b.theoretical_gbytes_per_s = theoretical_gbytes_per_s(ctx.model, lp.level, k.kind, k.isa, ghz, cores);
      out.push_back(b);
    }

    if (measured_in(ctx.options.mode, Kind::random)) out.push_back(measure_random(ctx, team, lp, arrays));
    team.run([&](int m) { arrays[size_t(m)].reset(); });  // freed by the thread that mapped it
  }
  return out;
}

}  // namespace roofprof::ceilings
