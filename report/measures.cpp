#include "report/measures.hpp"

#include <algorithm>

namespace roofprof::report {
namespace {

std::optional<double> counted_cycles(const Subject& s) {
  auto it = s.counters().find("cycles");
  if (it == s.counters().end() || !it->second || *it->second <= 0) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<double> traffic(const std::map<std::string, result::Bytes>& bytes,
                              const std::string& level, Rw rw) {
  auto it = bytes.find(level);
  if (it == bytes.end()) return std::nullopt;
  const auto& b = it->second;
  switch (rw) {
    case Rw::read: return b.read;
    case Rw::write: return b.write;
    case Rw::both: break;
  }
  if (!b.read || !b.write) return std::nullopt;
  return *b.read + *b.write;
}

Measures measure(const Subject& s, const View& view, const Roofs* roofs,
                 std::optional<double> ghz) {
  Measures m;
  m.work = s.flops();
  m.traffic = traffic(s.bytes(), view.level, view.rw);
  if (m.work && m.traffic && *m.traffic > 0) m.intensity = *m.work / *m.traffic;
  const std::optional<double> t = s.time_s();
  if (!m.work || !t || *t <= 0) return m;
  m.gflops = *m.work / *t / 1e9;
  auto cycles = counted_cycles(s);
  if (cycles) m.flops_per_cycle = *m.work / *cycles;

  // P in the view's units: GFlop/s, or flop per cycle of the measured clock (the same clock
  // the roofs are converted with; a counted cycles counter is summed over threads, so it is
  // shown in its own column rather than compared with the roofs of several threads).
  std::optional<double> p = m.gflops;
  auto per_time = [&](double seconds) -> std::optional<double> {
    return *m.work / double(s.calls()) / seconds / 1e9;
  };
  double cycles_scale = 1;  // GFlop/s -> view units for the per-call bars
  if (view.units == Units::cycles) {
    if (ghz) {
      p = *m.gflops / *ghz;
      cycles_scale = 1 / *ghz;
      m.y_converted = true;
    } else {
      p.reset();
    }
  }
  // The point is P = total W / total T, as in the table and the exports (one P for a region); the
  // per-call spread is a range around it: P of calls at q3 and q1 of the time per call.
  m.y = p;
  const auto& q = s.per_call();
  if (p && q && s.homogeneous() && s.calls() > 1 && q->q3 > 0 && q->q1 > 0) {
    m.y_lo = *per_time(q->q3) * cycles_scale;
    m.y_hi = *per_time(q->q1) * cycles_scale;
  }

  if (roofs && p && m.intensity) {
    std::optional<double> memory_bound;
    if (roofs->beta) memory_bound = *m.intensity * *roofs->beta;
    if (roofs->pi && memory_bound) {
      m.bound = std::min(*roofs->pi, *memory_bound);
      m.bound_by = *memory_bound < *roofs->pi ? "memory" : "compute";
    }
    if (m.bound && *m.bound > 0) m.fraction = *p / *m.bound;
  }
  return m;
}

}  // namespace roofprof::report
