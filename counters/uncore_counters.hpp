#pragma once
// System-wide uncore counters (memory-controller CAS counts): one event per box and socket,
// pid = -1. They count every process on the socket, so Q from them includes other processes'
// traffic (results must say so). Needs perf_event_paranoid <= 0 or CAP_PERFMON / root.
#include <map>
#include <string>
#include <vector>

#include "counters/event_encoding.hpp"
#include "counters/perf_event_open.hpp"
#include "counters/sysfs_pmu.hpp"

namespace roofprof::counters {

struct UncoreReading {
  std::map<std::string, double> values;  // id -> sum over boxes and sockets (kNotCounted if never scheduled)
  bool multiplexed = false;
};

class UncoreCounters {
 public:
  // Opens every event whose sysfs PMU exists (lines for absent PMUs are other variants of the
  // family and are skipped). Throws UserError when none exists, or with advice when refused.
  explicit UncoreCounters(const std::vector<EncodedEvent>& uncore_events,
                          const std::string& sysfs_root = perf_system().sysfs_root());
  UncoreReading read() const;
  const std::vector<std::string>& pmus() const { return pmus_; }  // sysfs PMUs in use

 private:
  struct Open {
    std::string id;
    PerfFd fd;
  };
  std::vector<Open> open_;
  std::vector<std::string> pmus_;
};

}  // namespace roofprof::counters
