#include "regions/self_counts.hpp"

namespace roofprof::regions {

namespace {

void add_to(std::vector<double>& sum, const std::vector<double>& v, double sign = 1) {
  if (sum.size() < v.size()) sum.resize(v.size(), 0.0);
  for (size_t i = 0; i < v.size(); ++i) sum[i] += sign * v[i];
}

}  // namespace

void SelfCounts::add(const Instance& inst) {
  auto& levels = pending_[{inst.pid, inst.tid}];
  std::vector<double> own = inst.counts;
  auto inner = levels.find(inst.depth + 1);
  if (inner != levels.end()) {
    add_to(own, inner->second, -1);
    levels.erase(inner);
  }
  add_to(self_[inst.region], own);
  add_to(levels[inst.depth], inst.counts);
}

}  // namespace roofprof::regions
