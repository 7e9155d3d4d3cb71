#pragma once
// ThreadCounters over one or more perf_event groups of one thread. Values come out in group
// order, leader first within each group, raw, with each group's enabled/running times
// (CounterValues::groups); counter_delta scales the deltas.
#include <vector>

#include "counters/backend.hpp"
#include "counters/perf_group.hpp"

namespace roofprof::counters {

class PerfThreadCounters : public ThreadCounters {
 public:
  explicit PerfThreadCounters(std::vector<PerfGroup> groups) : groups_(std::move(groups)) {}
  CounterValues read() override;

 private:
  std::vector<PerfGroup> groups_;
};

}  // namespace roofprof::counters
