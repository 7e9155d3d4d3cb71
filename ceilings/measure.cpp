#include "ceilings/measure.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <memory>

#include "ceilings/check.hpp"
#include "ceilings/context.hpp"
#include "ceilings/knees.hpp"
#include "ceilings/machine.hpp"
#include "ceilings/names.hpp"
#include "ceilings/plan.hpp"

namespace roofprof::ceilings {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<int> thread_counts(const MeasureOptions& o, int cpus) {
  std::vector<int> out = o.thread_counts;
  if (out.empty()) out = cpus > 1 ? std::vector<int>{1, cpus} : std::vector<int>{1};
  for (int& t : out) t = std::clamp(t, 1, cpus);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

// check.hpp's Remeasure on this machine: the line's ISA (all its kernels) or level (all its
// kinds) measured again on a team of the line's size, once per ISA or level and team size
// however many of its lines failed, and the matching line taken.
Remeasure remeasure_on(const Context& ctx, const std::vector<int>& cpus, const Ceilings& c) {
  auto team_of = [cpus](int threads) {
    return std::vector<int>(cpus.begin(), cpus.begin() + std::min<size_t>(size_t(threads), cpus.size()));
  };
  auto ghz_of = [&c](int threads) {
    for (const auto& f : c.frequency)
      if (f.threads == threads) return f.ghz.max;
    return 0.0;
  };
  auto computed = std::make_shared<std::map<std::pair<Isa, int>, std::vector<ComputeCeiling>>>();
  auto streamed = std::make_shared<std::map<std::pair<Level, int>, std::vector<BandwidthCeiling>>>();
  Remeasure r;
  r.compute = [=, &ctx](const ComputeCeiling& x) {
    auto& again = (*computed)[{x.isa, x.threads}];
    if (again.empty()) {
      ctx.progress("again: compute " + std::string(name(x.isa)) + ", " + std::to_string(x.threads) + " threads");
      MeasureOptions narrow = ctx.options;
      narrow.isas = {x.isa};
      const Context one{ctx.timer, narrow, ctx.model, ctx.caches, ctx.dram_total, ctx.sample_s, ctx.samples};
      Team team(team_of(x.threads));
      again = measure_compute(one, team);
    }
    for (const auto& y : again)
      if (y.precision == x.precision && y.op == x.op) return y;
    return x;
  };
  r.bandwidth = [=, &ctx](const BandwidthCeiling& x) {
    auto& again = (*streamed)[{x.level, x.threads}];
    if (again.empty()) {
      ctx.progress("again: bandwidth " + std::string(name(x.level)) + ", " + std::to_string(x.threads) + " threads");
      MeasureOptions narrow = ctx.options;
      narrow.levels = {x.level};
      const Context one{ctx.timer, narrow, ctx.model, ctx.caches, ctx.dram_total, ctx.sample_s, ctx.samples};
      Team team(team_of(x.threads));
      again = measure_bandwidth(one, team, ghz_of(x.threads));
    }
    for (const auto& y : again)
      if (y.kind == x.kind) return y;
    return x;
  };
  return r;
}

}  // namespace

bool measured_in(Mode mode, Op op) { return mode == Mode::full || op == Op::fma || op == Op::add_mul; }
bool measured_in(Mode mode, Kind kind) { return mode == Mode::full || kind != Kind::random; }

Ceilings measure(const MeasureOptions& options) {
  const auto begin = std::chrono::steady_clock::now();
  const Timer timer = Timer::calibrate();
  const bool full = options.mode == Mode::full;
  Context ctx{timer, options, core_model(cpu_signature()), cache_geometry()};
  ctx.sample_s = (options.sample_ms > 0 ? options.sample_ms : full ? 50.0 : 20.0) / 1e3;
  ctx.samples = options.samples > 0 ? options.samples : full ? 9 : 3;
  ctx.dram_total = dram_total_bytes(ctx.caches, physical_memory());

  Ceilings c;
  c.machine = current_machine();
  c.caches = ctx.caches;
  for (Isa i : supported_isas()) c.isas.push_back(name(i));
  c.method.mode = options.mode;
  c.method.timer = timer.name();
  c.method.timer_ghz = timer.ticks_per_ns();
  c.method.timer_overhead_ns = timer.overhead_ns();
  c.method.sample_ms = ctx.sample_s * 1e3;
  c.method.samples = ctx.samples;
  c.method.core_model = ctx.model ? ctx.model->name : "";
  if (options.compute) c.method.parts.push_back("compute");
  if (options.bandwidth) c.method.parts.push_back("bandwidth");
  if (options.latency) c.method.parts.push_back("latency");
  c.method.measured_at = utc_now();

  const std::vector<int> cpus = allowed_cpus();
  // The levels' working sets come from the hierarchy as measured where a VM misreports it.
  if (options.bandwidth || options.latency || full) {
    Team single({cpus.front()});
    c.measured_caches = measure_hierarchy(ctx, single, hierarchy_sweep_limit(ctx.caches, physical_memory()));
    c.method.parts.push_back("hierarchy");
    ctx.caches = effective_caches(ctx.caches, c.measured_caches);
    ctx.dram_total = dram_total_bytes(ctx.caches, physical_memory());
  }
  double single_ghz = 0;
  for (int threads : thread_counts(options, int(cpus.size()))) {
    Team team(std::vector<int>(cpus.begin(), cpus.begin() + threads));
    ctx.progress("clock, " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : ""));
    const Spread ghz = measure_clock(team, timer, ctx.samples);
    c.frequency.push_back({threads, ghz});
    if (threads == 1) single_ghz = ghz.max;
    if (options.compute)
      for (auto& x : measure_compute(ctx, team)) c.compute.push_back(x);
    if (options.bandwidth)
      for (auto& x : measure_bandwidth(ctx, team, ghz.max)) c.bandwidth.push_back(x);
  }
  if (options.latency || full) {
    Team single({cpus.front()});
    if (single_ghz == 0) single_ghz = measure_clock(single, timer, ctx.samples).max;
    if (options.latency) c.latency = measure_latency(ctx, single, single_ghz);
    if (full) c.sweep = measure_sweep(ctx, single);
  }
  // Lines that contradict the others or their theoretical peak: measured once more, then flagged.
  remeasure_and_flag(c, remeasure_on(ctx, cpus, c));
  c.method.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return c;
}

}  // namespace roofprof::ceilings
