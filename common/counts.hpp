#pragma once
#include <vector>

namespace roofprof {

// Cumulative counter values of one thread or one process, in a backend's event order.
// Values are already scaled for multiplexing when `multiplexed` is set (time running <
// time enabled for at least one event); such numbers are estimates and are labelled so.
struct CounterValues {
  std::vector<double> values;
  bool multiplexed = false;
};

}  // namespace roofprof
