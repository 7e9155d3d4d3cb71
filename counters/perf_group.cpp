#include "counters/perf_group.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

#include "common/error.hpp"

namespace roofprof::counters {

perf_event_attr counting_attr(uint32_t type, uint64_t config) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.read_format =
      PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  a.disabled = 0;
  a.inherit = 0;
  a.exclude_hv = 1;
  return a;
}

PerfGroup::PerfGroup(pid_t tid, const std::vector<EventSpec>& specs, bool pinned) : pinned_(pinned) {
  if (specs.empty()) throw std::logic_error("PerfGroup: empty event list");
  fds_.reserve(specs.size());
  for (const EventSpec& s : specs) {
    perf_event_attr attr = s.attr;
    attr.size = sizeof attr;
    attr.read_format =
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = 0;
    attr.inherit = 0;
    attr.pinned = fds_.empty() && pinned ? 1 : 0;  // only a leader may be pinned
    const int leader = fds_.empty() ? -1 : fds_.front().get();
    const int fd = perf_event_open_fd(attr, tid, -1, leader);
    if (fd < 0) {
      const int err = errno;
      throw UserError(advice_for_errno(
          err, fmt::format("perf_event_open({}, thread {})", s.name, tid).c_str()));
    }
    fds_.emplace_back(fd);
  }
}

GroupReading PerfGroup::read() const {
  // Layout: nr, time_enabled, time_running, value[nr].
  std::vector<uint64_t> buf(3 + fds_.size());
  const ssize_t want = static_cast<ssize_t>(buf.size() * sizeof(uint64_t));
  ssize_t got;
  do {
    got = perf_read(fds_.front().get(), buf.data(), static_cast<size_t>(want));
  } while (got < 0 && errno == EINTR);
  if (got == 0) {  // kernel/events/core.c __perf_read(): end of file for an event in error state
    GroupReading r;
    r.raw.assign(fds_.size(), 0);
    r.in_error = true;
    return r;
  }
  if (got != want || buf[0] != fds_.size())
    throw std::runtime_error(fmt::format("perf group read returned {} bytes ({}), expected {}",
                                         got, got < 0 ? std::strerror(errno) : "short", want));
  GroupReading r;
  r.time_enabled = buf[1];
  r.time_running = buf[2];
  r.raw.assign(buf.begin() + 3, buf.end());
  return r;
}

}  // namespace roofprof::counters
