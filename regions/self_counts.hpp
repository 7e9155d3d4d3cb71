#pragma once
// Each region's own counts: an instance's counts minus those of the instances directly inside
// it (opened while it was open on the same thread, one level deeper). With every function of
// interest a region (roofprof survey --backend emul), a function's self W is the work of its
// own instructions and of the functions it called that are not regions. Instances must come
// as the Tracker closes them (innermost first); thread scope, so that counts are the thread's.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "regions/tracker.hpp"

namespace roofprof::regions {

class SelfCounts {
 public:
  void add(const Instance& inst);
  // Region -> summed own counts, in the instances' counter order.
  const std::map<RegionId, std::vector<double>>& totals() const { return self_; }

 private:
  // Per thread, per depth: the summed counts of closed instances not yet claimed by the
  // instance one level up.
  std::map<std::pair<int, Tid>, std::map<uint32_t, std::vector<double>>> pending_;
  std::map<RegionId, std::vector<double>> self_;
};

}  // namespace roofprof::regions
