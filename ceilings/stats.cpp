#include "ceilings/stats.hpp"

#include <algorithm>

namespace roofprof::ceilings {

Spread summarize(std::vector<double> v) {
  Spread s;
  s.samples = int(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

Spread rates(double numerator, const std::vector<double>& seconds) {
  std::vector<double> r;
  r.reserve(seconds.size());
  for (double s : seconds) r.push_back(numerator / s);
  return summarize(r);
}

}  // namespace roofprof::ceilings
