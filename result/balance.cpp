#include "result/balance.hpp"

#include <numeric>

#include "result/quantiles.hpp"

namespace roofprof::result {

Spread spread_of(std::vector<double> values) {
  if (values.empty()) return Spread{};
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  const auto five = five_numbers(values);
  return Spread{five->min, five->median, five->max, mean};
}

namespace {

// The values of the calling threads, or nothing when one of them is unknown.
template <class Get>
std::optional<std::vector<double>> of_callers(const std::vector<ThreadPart>& parts, Get get) {
  std::vector<double> out;
  for (const ThreadPart& p : parts) {
    if (p.calls == 0) continue;
    std::optional<double> v = get(p);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

bool flagged(const std::optional<Spread>& s) {
  const auto i = s ? s->imbalance() : std::nullopt;
  return i && *i > kImbalanceFlagged;
}

}  // namespace

std::optional<Balance> balance_of(const std::vector<ThreadPart>& parts) {
  Balance b;
  for (const ThreadPart& p : parts) b.threads += p.calls > 0 ? 1 : 0;
  if (b.threads < 2) return std::nullopt;
  if (auto t = of_callers(parts, [](const ThreadPart& p) { return p.time_s; })) b.time_s = spread_of(*t);
  if (auto w = of_callers(parts, [](const ThreadPart& p) { return p.flops; })) b.flops = spread_of(*w);
  return b;
}

bool imbalanced(const Balance& b) { return flagged(b.time_s) || flagged(b.flops); }

}  // namespace roofprof::result
