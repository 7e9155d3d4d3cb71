#pragma once
// Each region's own counts: an instance's counts minus those of its children (the instances
// that opened while it was the innermost open one on their thread, Instance::parent), along
// each call path. With every function of interest a region (roofprof survey --backend emul),
// a function's self W is the work of its own instructions and of the functions it called that
// are not regions. Instances come as the Tracker closes them (innermost first). A child that
// closes after its parent (the data disagree: a lost return, a span stopped outside its
// caller) is not subtracted from anything; an own count below zero is clamped at zero and
// counted against its region.
#include <cstdint>
#include <map>
#include <vector>

#include "regions/tracker.hpp"

namespace roofprof::regions {

class SelfCounts {
 public:
  void add(const Instance& inst);
  // Region -> summed own counts, in the instances' counter order.
  const std::map<RegionId, std::vector<double>>& totals() const { return self_; }
  // Region -> how many of its instances had a count below zero after their children's were
  // subtracted (clamped at zero).
  const std::map<RegionId, uint64_t>& clamped() const { return clamped_; }

 private:
  std::map<uint64_t, std::vector<double>> children_;  // parent instance -> its closed children's counts
  std::map<RegionId, std::vector<double>> self_;
  std::map<RegionId, uint64_t> clamped_;
};

}  // namespace roofprof::regions
