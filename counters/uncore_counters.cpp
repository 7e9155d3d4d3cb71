#include "counters/uncore_counters.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <stdexcept>

#include "common/error.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {
namespace {

void add_once(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

size_t index_of(std::vector<std::string>& ids, const std::string& id) {
  add_once(ids, id);
  return static_cast<size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
}

class SystemWideBackend : public Backend {
 public:
  SystemWideBackend(std::unique_ptr<Backend> per_thread, std::unique_ptr<UncoreCounters> uncore)
      : per_thread_(std::move(per_thread)), uncore_(std::move(uncore)), events_(per_thread_->events()) {
    for (const std::string& id : uncore_->ids()) events_.push_back({id, "count"});
  }
  std::string name() const override { return per_thread_->name(); }
  const std::vector<EventInfo>& events() const override { return events_; }
  std::unique_ptr<ThreadCounters> open(pid_t tid) override { return per_thread_->open(tid); }
  size_t system_wide_events() const override { return uncore_->ids().size(); }
  CounterValues read_system_wide() override { return uncore_->read(); }

 private:
  std::unique_ptr<Backend> per_thread_;
  std::unique_ptr<UncoreCounters> uncore_;
  std::vector<EventInfo> events_;
};

}  // namespace

UncoreEvents encode_uncore_events(const EventSet& set, const std::string& root) {
  UncoreEvents out;
  PfmLibrary pfm(true);
  for (const EventLine* line : set.lines(EventScope::uncore)) {
    if (!sysfs_pmu_type(line->perf_pmu, root)) continue;
    try {
      out.events.push_back(encode_line(set, *line, pfm, ""));
      add_once(out.pmus, line->perf_pmu);
    } catch (const UserError& e) {
      out.notes.push_back(fmt::format("event {} on {} not counted: {}", line->id, line->perf_pmu, e.what()));
    }
  }
  return out;
}

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
      open_.push_back({index_of(ids_, e.line.id), PerfFd(fd)});
    }
    add_once(pmus_, e.line.perf_pmu);
  }
  if (open_.empty())
    throw UserError(fmt::format(
        "no memory-controller PMU on this machine ({} not in {}): DRAM traffic cannot be "
        "counted; the per-core approximation is used instead",
        wanted.empty() ? "no uncore events in the set" : wanted, root));
}

CounterValues UncoreCounters::read() const {
  CounterValues out;
  out.values.assign(ids_.size(), 0.0);
  for (size_t i = 0; i < ids_.size(); ++i) out.groups.push_back({i, 1, 0, 0});
  for (const Open& o : open_) {
    uint64_t buf[3] = {0, 0, 0};  // value, time_enabled, time_running
    if (perf_read(o.fd.get(), buf, sizeof buf) != static_cast<ssize_t>(sizeof buf))
      throw std::runtime_error("uncore counter read failed for " + ids_[o.id]);
    out.values[o.id] += static_cast<double>(buf[0]);
    out.groups[o.id].enabled += buf[1];
    out.groups[o.id].running += buf[2];
  }
  return out;
}

std::unique_ptr<Backend> with_system_wide(std::unique_ptr<Backend> per_thread, std::unique_ptr<UncoreCounters> uncore) {
  return std::make_unique<SystemWideBackend>(std::move(per_thread), std::move(uncore));
}

}  // namespace roofprof::counters
