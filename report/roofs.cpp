#include "report/roofs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ceilings/ceilings.hpp"
#include "ceilings/check.hpp"
#include "ceilings/machine.hpp"
#include "common/error.hpp"
#include "report/format.hpp"

namespace roofprof::report {
namespace {

using ceilings::BandwidthCeiling;
using ceilings::ComputeCeiling;
using ceilings::Isa;

const ceilings::Level kLevels[] = {ceilings::Level::l1, ceilings::Level::l2, ceilings::Level::l3,
                                   ceilings::Level::dram};

std::string threads_text(int t) { return fmt::format("{} thread{}", t, t == 1 ? "" : "s"); }

// A roof from a line that failed the sanity check (ceilings/check.hpp) says so.
std::string flag_text(const std::string& flagged) { return flagged.empty() ? "" : " FLAGGED"; }

// The thread count whose roofs are drawn, and why (for the origin line).
std::pair<int, std::string> roof_threads(const ceilings::Ceilings& c, const View& view, std::optional<int> ran_with) {
  std::set<int> measured;
  for (const auto& x : c.compute) measured.insert(x.threads);
  for (const auto& x : c.bandwidth) measured.insert(x.threads);
  if (measured.empty()) return {0, ""};
  if (view.threads) {
    if (!measured.count(*view.threads)) {
      std::string list;
      for (int t : measured) list += (list.empty() ? "" : ", ") + std::to_string(t);
      throw UserError(fmt::format("--threads {}: the ceilings were measured with {} threads; "
                                  "measure more with roofprof ceilings --threads",
                                  *view.threads, list));
    }
    return {*view.threads, "as --threads asks"};
  }
  if (!ran_with) return {*measured.rbegin(), "the most measured: the results do not say how many threads ran"};
  if (measured.count(*ran_with)) return {*ran_with, "the threads the regions ran on"};
  auto below = measured.upper_bound(*ran_with);
  const int t = below == measured.begin() ? *measured.begin() : *std::prev(below);
  return {t, fmt::format("the nearest measured to the {} the regions ran on", threads_text(*ran_with))};
}

// The clock of `threads` threads: the frequency reading, else the highest compute clock.
std::optional<double> clock_ghz(const ceilings::Ceilings& c, int threads) {
  for (const auto& f : c.frequency)
    if (f.threads == threads && f.ghz.max > 0) return f.ghz.max;
  double best = 0;
  for (const auto& x : c.compute)
    if (x.threads == threads) best = std::max(best, x.ghz);
  return best > 0 ? std::optional(best) : std::nullopt;
}

// The best op of one ISA at one thread count (fma where measured).
const ComputeCeiling* best_of(const ceilings::Ceilings& c, Isa isa, ceilings::Precision p,
                              int threads) {
  const ComputeCeiling* best = nullptr;
  for (const auto& x : c.compute)
    if (x.isa == isa && x.precision == p && x.threads == threads &&
        (!best || x.gflops.median > best->gflops.median))
      best = &x;
  return best;
}

double traffic_rate(const BandwidthCeiling& b, Rw rw) {
  switch (rw) {
    case Rw::read: return b.read_gbytes_per_s;
    case Rw::write: return b.write_gbytes_per_s;
    case Rw::both: break;
  }
  return b.gbytes_per_s.median;
}

// Kernels whose traffic is like Q: reads and writes (copy, triad) for read + write, any other
// streaming kernel for read-only or write-only traffic. Random access is a latency test.
bool fits(const BandwidthCeiling& b, Rw rw) {
  if (b.kind == ceilings::Kind::random) return false;
  if (rw == Rw::both) return b.read_gbytes_per_s > 0 && b.write_gbytes_per_s > 0;
  return traffic_rate(b, rw) > 0;
}

// The highest bandwidth measured at `level` by a kernel that fits the traffic `rw`.
const BandwidthCeiling* best_bandwidth(const ceilings::Ceilings& c, ceilings::Level level,
                                       Rw rw, int threads) {
  const BandwidthCeiling* best = nullptr;
  for (const auto& b : c.bandwidth)
    if (b.level == level && b.threads == threads && fits(b, rw) &&
        (!best || traffic_rate(b, rw) > traffic_rate(*best, rw)))
      best = &b;
  return best;
}

// `clock`: GHz to divide by for per-cycle units (1 for GFlop/s).
void add_compute_roofs(const ceilings::Ceilings& c, ceilings::Precision p, int threads,
                       double clock, Roofs& out) {
  auto per = [&](const ComputeCeiling&) { return clock; };
  std::vector<const ComputeCeiling*> chosen;
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::sse, Isa::scalar})
    if (const auto* x = best_of(c, isa, p, threads)) chosen.push_back(x);
  std::sort(chosen.begin(), chosen.end(),
            [](auto* a, auto* b) { return a->gflops.median > b->gflops.median; });
  for (size_t i = 0; i < chosen.size(); ++i) {
    const auto& x = *chosen[i];
    out.roofs.push_back({true,
                         fmt::format("{} {}, {}{}", ceilings::name(x.isa), ceilings::name(x.op),
                                     threads_text(threads), flag_text(x.flagged)),
                         "", x.gflops.median / per(x), false, i == 0});
    if (i == 0) out.pi = x.gflops.median / per(x);
  }
  if (chosen.empty()) return;
  const auto& top = *chosen.front();
  if (top.theoretical_gflops)
    out.roofs.push_back({true,
                         fmt::format("{} {}, {} (theoretical)", ceilings::name(top.isa),
                                     ceilings::name(top.op), threads_text(threads)),
                         "", *top.theoretical_gflops / per(top), true, false});
  // The best ISA at the other thread counts measured.
  std::set<int> others;
  for (const auto& x : c.compute)
    if (x.threads != threads && x.precision == p) others.insert(x.threads);
  for (int t : others)
    if (const auto* x = best_of(c, top.isa, p, t))
      out.roofs.push_back({true,
                           fmt::format("{} {}, {}{}", ceilings::name(x->isa), ceilings::name(x->op),
                                       threads_text(t), flag_text(x->flagged)),
                           "", x->gflops.median / per(*x), false, false});
}

void add_bandwidth_roofs(const ceilings::Ceilings& c, const View& view, int threads, double per,
                         Roofs& out) {
  for (auto level : kLevels) {
    const auto* b = best_bandwidth(c, level, view.rw, threads);
    if (!b) continue;
    const std::string lname = ceilings::name(level);
    const bool primary = lname == view.level;
    std::string what = view.rw == Rw::both ? ceilings::name(b->kind)
                                           : std::string(name(view.rw)) + ", " +
                                                 ceilings::name(b->kind);
    out.roofs.push_back({false, fmt::format("{} {}, {}{}", lname, what, threads_text(threads), flag_text(b->flagged)),
                         lname, traffic_rate(*b, view.rw) / per, false, primary});
    if (primary) out.beta = traffic_rate(*b, view.rw) / per;
    // A theoretical number is for the kernel's total traffic; only shown for read + write.
    if (b->theoretical_gbytes_per_s && view.rw == Rw::both)
      out.roofs.push_back({false, fmt::format("{} (theoretical)", lname), lname,
                           *b->theoretical_gbytes_per_s / per, true, false});
  }
}

}  // namespace

std::optional<int> ran_with_threads(const std::vector<const result::Run*>& runs) {
  std::optional<int> most;
  for (const auto* run : runs)
    for (const auto& r : run->regions) {
      int n = 0;
      for (const auto& part : r.per_thread) n += part.calls > 0;
      if (n > 0) most = std::max(most.value_or(0), n);
    }
  return most;
}

Roofs select_roofs(const ceilings::Ceilings& c, const View& view, ceilings::Precision p, std::optional<int> ran_with) {
  Roofs out;
  const auto [threads, why] = roof_threads(c, view, ran_with);
  out.threads = threads;
  out.precision = ceilings::name(p);
  double per = 1;  // GFlop/s -> flop/cycle: divide by GHz
  std::string clock;
  if (view.units == Units::cycles) {
    auto ghz = clock_ghz(c, out.threads);
    if (!ghz) throw UserError("--units cycles: the ceilings have no measured clock");
    per = *ghz;
    out.perf_unit = "flop/cycle";
    out.bandwidth_unit = "B/cycle";
    clock = fmt::format(", converted to cycles at the measured {} GHz", sig3(*ghz));
  }
  add_compute_roofs(c, p, out.threads, per, out);
  add_bandwidth_roofs(c, view, out.threads, per, out);
  out.origin = fmt::format("roofs: {} {}, {} precision, {} ({}){}", c.machine.cpu_model,
                           c.method.measured_at.empty() ? "" : "measured " + c.method.measured_at,
                           out.precision, threads_text(out.threads), why, clock);
  return out;
}

FoundCeilings checked(ceilings::Ceilings c, std::string origin) {
  FoundCeilings out{std::move(c), std::move(origin), {}};
  ceilings::flag_inconsistent(out.ceilings);
  for (const auto& line : ceilings::flagged_lines(out.ceilings))
    out.warnings.push_back("ceilings " + out.origin + ": flagged " + line + " (roofprof ceilings --remeasure)");
  return out;
}

std::optional<FoundCeilings> find_ceilings(const std::optional<std::filesystem::path>& file) {
  if (file) return checked(ceilings::load(*file), file->string());
  auto dir = ceilings::default_cache_dir();
  if (dir.empty()) return std::nullopt;
  auto path = ceilings::cache_file(dir, ceilings::current_machine());
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    return checked(ceilings::load(path), path.string() + " (this machine's cache)");
  } catch (const UserError&) {
    return std::nullopt;  // unreadable cache: as if absent (roofprof ceilings measures again)
  }
}

}  // namespace roofprof::report
