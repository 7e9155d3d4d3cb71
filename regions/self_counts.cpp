#include "regions/self_counts.hpp"

#include <cmath>

namespace roofprof::regions {

namespace {

void add_to(std::vector<double>& sum, const std::vector<double>& v, double sign = 1) {
  if (sum.size() < v.size()) sum.resize(v.size(), 0.0);
  for (size_t i = 0; i < v.size(); ++i) sum[i] += sign * v[i];
}

}  // namespace

void SelfCounts::add(const Instance& inst) {
  std::vector<double> own = inst.counts;
  if (auto inner = children_.find(inst.id); inner != children_.end()) {
    add_to(own, inner->second, -1);
    children_.erase(inner);
  }
  bool below_zero = false;
  for (double& v : own)
    if (v < 0) below_zero = true, v = 0;
  if (below_zero) ++clamped_[inst.region];
  add_to(self_[inst.region], own);
  if (inst.parent) add_to(children_[inst.parent], inst.counts);
}

}  // namespace roofprof::regions
