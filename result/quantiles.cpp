#include "result/quantiles.hpp"

#include <algorithm>
#include <cmath>

namespace roofprof::result {
namespace {

// Type 7: h = (n-1) p, interpolate between the order statistics around h.
double type7(const std::vector<double>& sorted, double p) {
  double h = double(sorted.size() - 1) * p;
  size_t lo = size_t(std::floor(h));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

// CDF of one five-number summary, linear between the five points.
double cdf(const Stats& s, double x) {
  const double xs[5] = {s.min, s.q1, s.median, s.q3, s.max};
  const double ps[5] = {0, 0.25, 0.5, 0.75, 1};
  if (x < xs[0]) return 0;
  if (x >= xs[4]) return 1;
  for (int i = 0; i < 4; ++i) {
    if (x < xs[i + 1]) {
      double w = xs[i + 1] - xs[i];
      return w > 0 ? ps[i] + (ps[i + 1] - ps[i]) * (x - xs[i]) / w : ps[i + 1];
    }
  }
  return 1;
}

}  // namespace

std::optional<Stats> five_numbers(std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  return Stats{values.front(), type7(values, 0.25), type7(values, 0.5), type7(values, 0.75),
               values.back()};
}

std::optional<Stats> mix(const std::vector<std::pair<Stats, double>>& parts) {
  double total = 0;
  Stats out{INFINITY, 0, 0, 0, -INFINITY};
  for (const auto& [s, w] : parts) {
    if (w <= 0) continue;
    total += w;
    out.min = std::min(out.min, s.min);
    out.max = std::max(out.max, s.max);
  }
  if (total <= 0) return std::nullopt;
  int nonempty = 0;
  const Stats* only = nullptr;
  for (const auto& [s, w] : parts)
    if (w > 0) ++nonempty, only = &s;
  if (nonempty == 1) return *only;
  auto quantile = [&](double p) {
    double lo = out.min, hi = out.max;
    for (int i = 0; i < 200 && hi > lo; ++i) {
      double mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) break;
      double f = 0;
      for (const auto& [s, w] : parts)
        if (w > 0) f += w * cdf(s, mid);
      (f / total < p ? lo : hi) = mid;
    }
    return hi;
  };
  out.q1 = quantile(0.25);
  out.median = std::max(out.q1, quantile(0.5));
  out.q3 = std::max(out.median, quantile(0.75));
  return out;
}

}  // namespace roofprof::result
