#pragma once
// System-wide uncore counters (memory-controller CAS counts): one event per box and socket,
// pid = -1. They count every process on the socket, so Q from them includes other processes'
// traffic (results must say so). Needs perf_event_paranoid <= 0 or CAP_PERFMON / root.
#include <memory>
#include <string>
#include <vector>

#include "common/counts.hpp"
#include "counters/backend.hpp"
#include "counters/event_encoding.hpp"
#include "counters/perf_event_open.hpp"
#include "counters/sysfs_pmu.hpp"

namespace roofprof::counters {

// The set's uncore lines whose sysfs PMU exists, encoded (lines for absent PMUs are other
// variants of the family). libpfm4 names are encoded with inactive PMUs allowed: an uncore
// event's code is its own PMU's, whatever core PMU libpfm4 detected or was forced to. A line
// that cannot be encoded is left out with a note. Creates a PfmLibrary: the caller holds none.
struct UncoreEvents {
  std::vector<EncodedEvent> events;
  std::vector<std::string> pmus;  // the sysfs PMUs of `events`, in set order
  std::vector<std::string> notes;
};
UncoreEvents encode_uncore_events(const EventSet& set, const std::string& sysfs_root = perf_system().sysfs_root());

class UncoreCounters {
 public:
  // Opens every event whose sysfs PMU exists (lines for absent PMUs are other variants of the
  // family and are skipped). Throws UserError when none exists, or with advice when refused.
  explicit UncoreCounters(const std::vector<EncodedEvent>& uncore_events,
                          const std::string& sysfs_root = perf_system().sysfs_root());
  // Cumulative raw counts since open, one value per id (summed over boxes and sockets) in ids()
  // order, each id its own group with time_enabled/time_running summed likewise: perf's global
  // aggregation, scaled as deltas (counter_delta).
  CounterValues read() const;
  const std::vector<std::string>& ids() const { return ids_; }
  const std::vector<std::string>& pmus() const { return pmus_; }  // sysfs PMUs in use

 private:
  struct Open {
    size_t id;  // index into ids_
    PerfFd fd;
  };
  std::vector<Open> open_;
  std::vector<std::string> ids_;
  std::vector<std::string> pmus_;
};

// `per_thread` plus `uncore` as its system-wide events (Backend::system_wide_events): named
// after their ids, read once per process-scope read.
std::unique_ptr<Backend> with_system_wide(std::unique_ptr<Backend> per_thread, std::unique_ptr<UncoreCounters> uncore);

}  // namespace roofprof::counters
