#pragma once
// One perf_event group on one thread: a leader and its members, read in one read(2).
#include <linux/perf_event.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "counters/perf_event_open.hpp"
#include "counters/scaling.hpp"

namespace roofprof::counters {

// An event to open: its attributes (type, config, exclude bits) and its name for messages.
// PerfGroup sets read_format, disabled and inherit itself.
struct EventSpec {
  std::string name;
  perf_event_attr attr{};
};

class PerfGroup {
 public:
  // Opens specs[0] as leader and the rest as members on thread `tid` (any CPU), counting
  // from now (the thread is stopped or has not run yet); `pinned`: the leader with
  // perf_event_attr.pinned. Throws UserError with advice.
  PerfGroup(pid_t tid, const std::vector<EventSpec>& specs, bool pinned = false);
  // A pinned group the kernel could not schedule is in error state for good: read(2) returns 0
  // (end of file) and the reading says in_error, with zero counts and times.
  GroupReading read() const;
  size_t size() const { return fds_.size(); }
  bool pinned() const { return pinned_; }

 private:
  std::vector<PerfFd> fds_;
  bool pinned_ = false;
};

// The attribute block roofprof uses for every event: counting (no sampling), enabled from
// open, not inherited, group read format with enabled/running times.
perf_event_attr counting_attr(uint32_t type, uint64_t config);

}  // namespace roofprof::counters
