#include "regions/aggregate.hpp"

#include <algorithm>

namespace roofprof::regions {

std::optional<Quantiles> quantiles(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  auto at = [&](double p) {
    double h = (double(v.size()) - 1) * p;
    size_t lo = size_t(h);
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
  };
  return Quantiles{v.front(), at(0.25), at(0.5), at(0.75), v.back()};
}

void Aggregator::add(const Instance& inst) {
  Last& l = last_;
  if (!l.aggregate || l.region != inst.region) l = Last{inst.region, &regions_[inst.region]};
  Aggregate& a = *l.aggregate;
  double d = double(inst.end_ns - inst.begin_ns) * 1e-9;
  a.calls += 1;
  a.time_s += d;
  a.durations_s.push_back(d);
  if (a.counter_totals.size() < inst.counts.size()) a.counter_totals.resize(inst.counts.size(), 0.0);
  for (size_t i = 0; i < inst.counts.size(); ++i) a.counter_totals[i] += inst.counts[i];
  a.multiplexed |= inst.multiplexed;
  if (!l.closed || l.tid != inst.tid || l.pid != inst.pid || l.reason != inst.reason) {
    a.thread_ids.insert(inst.tid);
    a.pids.insert(inst.pid);
    l.closed = &a.closed_by[inst.reason];
    l.tid = inst.tid;
    l.pid = inst.pid;
    l.reason = inst.reason;
  }
  *l.closed += 1;
}

void Aggregator::next_run() {
  last_ = Last{};
  for (auto& [id, a] : regions_) {
    a.threads_most = a.threads();
    a.thread_ids.clear();
  }
}

void Aggregator::merge(const Aggregator& other) {
  last_ = Last{};
  for (const auto& [id, o] : other.regions_) {
    Aggregate& a = regions_[id];
    a.calls += o.calls;
    a.time_s += o.time_s;
    a.durations_s.insert(a.durations_s.end(), o.durations_s.begin(), o.durations_s.end());
    if (a.counter_totals.size() < o.counter_totals.size()) a.counter_totals.resize(o.counter_totals.size(), 0.0);
    for (size_t i = 0; i < o.counter_totals.size(); ++i) a.counter_totals[i] += o.counter_totals[i];
    a.multiplexed |= o.multiplexed;
    a.threads_most = std::max(a.threads(), o.threads());
    a.thread_ids.clear();
    a.pids.insert(o.pids.begin(), o.pids.end());
    for (const auto& [r, n] : o.closed_by) a.closed_by[r] += n;
  }
}

}  // namespace roofprof::regions
