#include "ceilings/check.hpp"

#include <fmt/format.h>

#include "ceilings/names.hpp"

namespace roofprof::ceilings {
namespace {

std::string threads_text(int t) { return fmt::format("{} thread{}", t, t == 1 ? "" : "s"); }

bool below(double x, double y) { return x < kConsistent * y; }

std::string compute_fault(const Ceilings& c, const ComputeCeiling& x) {
  if (x.theoretical_gflops && x.gflops.median > kAboveTheory * *x.theoretical_gflops)
    return fmt::format("above its theoretical peak ({:.1f} GFlop/s)", *x.theoretical_gflops);
  for (const auto& y : c.compute) {
    if (y.precision != x.precision || !below(x.gflops.median, y.gflops.median)) continue;
    const auto than = fmt::format("{} ({:.1f} GFlop/s)", describe(y), y.gflops.median);
    if ((y.op == x.op || x.op == Op::fma) && y.threads == x.threads && y.isa < x.isa)
      return "below the narrower " + than;
    if (y.op == x.op && y.isa == x.isa && y.threads < x.threads) return "below fewer threads' " + than;
    if (x.op == Op::fma && y.op == Op::add_mul && y.isa == x.isa && y.threads == x.threads)
      return "below " + than;
  }
  return "";
}

std::string bandwidth_fault(const Ceilings& c, const BandwidthCeiling& x) {
  if (x.theoretical_gbytes_per_s && x.gbytes_per_s.median > kAboveTheory * *x.theoretical_gbytes_per_s)
    return fmt::format("above its theoretical peak ({:.1f} GB/s)", *x.theoretical_gbytes_per_s);
  for (const auto& y : c.bandwidth) {
    if (y.kind != x.kind) continue;
    const auto than = fmt::format("{} ({:.1f} GB/s)", describe(y), y.gbytes_per_s.median);
    if (x.kind != Kind::nt_store && y.threads == x.threads && y.level < x.level &&
        below(y.gbytes_per_s.median, x.gbytes_per_s.median))
      return "above the nearer level's " + than;
    if (y.level == x.level && y.threads < x.threads && below(x.gbytes_per_s.median, y.gbytes_per_s.median))
      return "below fewer threads' " + than;
  }
  return "";
}

}  // namespace

std::string describe(const ComputeCeiling& x) {
  return fmt::format("{} {} {}, {}", name(x.isa), name(x.precision), name(x.op), threads_text(x.threads));
}

std::string describe(const BandwidthCeiling& x) {
  return fmt::format("{} {}, {}", name(x.level), name(x.kind), threads_text(x.threads));
}

std::vector<Inconsistency> inconsistencies(const Ceilings& c) {
  std::vector<Inconsistency> out;
  for (size_t i = 0; i < c.compute.size(); ++i)
    if (auto why = compute_fault(c, c.compute[i]); !why.empty()) out.push_back({true, i, why});
  for (size_t i = 0; i < c.bandwidth.size(); ++i)
    if (auto why = bandwidth_fault(c, c.bandwidth[i]); !why.empty()) out.push_back({false, i, why});
  return out;
}

std::vector<std::string> flag_inconsistent(Ceilings& c) {
  std::vector<std::string> out;
  for (const Inconsistency& f : inconsistencies(c)) {
    std::string& flagged = f.compute ? c.compute[f.index].flagged : c.bandwidth[f.index].flagged;
    if (!flagged.empty()) continue;
    flagged = f.why;
    out.push_back((f.compute ? describe(c.compute[f.index]) : describe(c.bandwidth[f.index])) + ": " + f.why);
  }
  return out;
}

std::vector<std::string> flagged_lines(const Ceilings& c) {
  std::vector<std::string> out;
  for (const auto& x : c.compute)
    if (!x.flagged.empty()) out.push_back(describe(x) + ": " + x.flagged);
  for (const auto& x : c.bandwidth)
    if (!x.flagged.empty()) out.push_back(describe(x) + ": " + x.flagged);
  return out;
}

std::vector<std::string> remeasure_and_flag(Ceilings& c, const Remeasure& again) {
  for (const Inconsistency& f : inconsistencies(c)) {
    if (f.compute) c.compute[f.index] = again.compute(c.compute[f.index]);
    else c.bandwidth[f.index] = again.bandwidth(c.bandwidth[f.index]);
  }
  return flag_inconsistent(c);
}

}  // namespace roofprof::ceilings
