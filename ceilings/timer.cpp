#include "ceilings/timer.hpp"

#include <algorithm>
#include <vector>

#include "ceilings/machine.hpp"

namespace roofprof::ceilings {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

Timer Timer::calibrate() {
  Timer t;
  t.tsc_ = cpu_signature().invariant_tsc;
  if (t.tsc_) {
    std::vector<double> rates;
    for (int i = 0; i < 3; ++i) {
      const uint64_t c0 = clock_ns(), t0 = t.start();
      while (clock_ns() - c0 < 10'000'000) {
      }
      const uint64_t t1 = t.stop(), c1 = clock_ns();
      rates.push_back(double(t1 - t0) / double(c1 - c0));
    }
    t.ticks_per_ns_ = median(rates);
  }
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t a = t.start();
    const uint64_t b = t.stop();
    best = std::min(best, b - a);
  }
  t.overhead_ns_ = double(best) / t.ticks_per_ns_;
  return t;
}

}  // namespace roofprof::ceilings
