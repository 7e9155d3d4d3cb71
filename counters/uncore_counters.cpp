#include "counters/uncore_counters.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <stdexcept>

#include "common/error.hpp"
#include "counters/backend.hpp"
#include "counters/scaling.hpp"

namespace roofprof::counters {

UncoreCounters::UncoreCounters(const std::vector<EncodedEvent>& events, const std::string& root) {
  std::string wanted;
  for (const EncodedEvent& e : events) {
    if (e.line.scope != EventScope::uncore) continue;
    wanted += (wanted.empty() ? "" : ", ") + e.line.perf_pmu;
    const auto type = sysfs_pmu_type(e.line.perf_pmu, root);
    if (!type) continue;
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = *type;
    attr.config = e.config;
    attr.config1 = e.config1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    for (int cpu : sysfs_pmu_cpus(e.line.perf_pmu, root)) {
      const int fd = perf_event_open_fd(attr, -1, cpu, -1);
      if (fd < 0) {
        const int err = errno;
        throw UserError(advice_for_errno(
            err, fmt::format("perf_event_open({} on {}, cpu {})", e.line.id, e.line.perf_pmu, cpu)
                     .c_str()));
      }
      open_.push_back({e.line.id, PerfFd(fd)});
    }
    if (std::find(pmus_.begin(), pmus_.end(), e.line.perf_pmu) == pmus_.end())
      pmus_.push_back(e.line.perf_pmu);
  }
  if (open_.empty())
    throw UserError(fmt::format(
        "no memory-controller PMU on this machine ({} not in {}): DRAM traffic cannot be "
        "counted; the per-core approximation is used instead",
        wanted.empty() ? "no uncore events in the set" : wanted, root));
}

UncoreReading UncoreCounters::read() const {
  UncoreReading out;
  for (const Open& o : open_) {
    uint64_t buf[3] = {0, 0, 0};  // value, time_enabled, time_running
    if (perf_read(o.fd.get(), buf, sizeof buf) != static_cast<ssize_t>(sizeof buf))
      throw std::runtime_error("uncore counter read failed for " + o.id);
    const ScaledGroup s = scale_group({buf[1], buf[2], {buf[0]}});
    out.values[o.id] += s.values[0];  // NaN (not counted) stays NaN in the sum
    out.multiplexed = out.multiplexed || s.multiplexed;
  }
  return out;
}

}  // namespace roofprof::counters
