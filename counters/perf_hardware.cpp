#include "counters/perf_hardware.hpp"

#include "common/error.hpp"
#include "counters/group_plan.hpp"
#include "counters/perf_group.hpp"
#include "counters/perf_thread_counters.hpp"

namespace roofprof::counters {
namespace {

EventSpec spec_for(const EncodedEvent& e, const std::string& sysfs_root) {
  uint32_t type = e.type;
  if (!e.line.perf_pmu.empty()) {
    const auto t = sysfs_pmu_type(e.line.perf_pmu, sysfs_root);
    if (!t)
      throw UserError("PMU '" + e.line.perf_pmu + "' is not in " + sysfs_root +
                      " (this kernel or CPU does not expose it; check `roofprof doctor`)");
    type = *t;
  }
  EventSpec s;
  s.name = e.line.id;
  s.attr = counting_attr(type, e.config);
  s.attr.config1 = e.config1;
  s.attr.exclude_kernel = 1;  // user level, like the libpfm4 encodings (PFM_PLM3)
  return s;
}

class PerfHardwareBackend : public Backend {
 public:
  PerfHardwareBackend(const std::vector<EncodedEvent>& events,
                      const std::vector<CounterLimit>& limits, const std::string& sysfs_root,
                      const std::set<std::string>& w_ids) {
    for (const EncodedEvent& e : events)
      if (e.line.scope != EventScope::thread)
        throw UserError("event " + e.line.id + " is system-wide (uncore), not per thread");
    for (const PlannedGroup& g : plan_event_groups(events, limits, w_ids).groups) {
      std::vector<EventSpec> specs;
      for (size_t i : g.members) {
        specs.push_back(spec_for(events[i], sysfs_root));
        events_.push_back({events[i].line.id, "count"});
      }
      // Pinned (W's group): scheduled before every flexible group and never rotated out. The
      // attribute says so for thread_groups(); PerfGroup opens the leader with it.
      specs.front().attr.pinned = g.pinned ? 1 : 0;
      groups_.push_back({std::move(specs), g.pinned});
    }
  }
  std::string name() const override { return "perf"; }
  const std::vector<EventInfo>& events() const override { return events_; }
  std::vector<std::vector<perf_event_attr>> thread_groups() const override {
    std::vector<std::vector<perf_event_attr>> out;
    for (const auto& group : groups_) {
      out.emplace_back();
      for (const EventSpec& s : group.first) out.back().push_back(s.attr);
    }
    return out;
  }
  std::unique_ptr<ThreadCounters> open(pid_t tid) override {
    std::vector<PerfGroup> groups;
    for (const auto& [specs, pinned] : groups_) groups.emplace_back(tid, specs, pinned);
    return std::make_unique<PerfThreadCounters>(std::move(groups));
  }

 private:
  std::vector<EventInfo> events_;
  std::vector<std::pair<std::vector<EventSpec>, bool>> groups_;  // events, pinned
};

}  // namespace

std::unique_ptr<Backend> make_perf_hardware_backend(const std::vector<EncodedEvent>& thread_events,
                                                    const std::vector<CounterLimit>& limits,
                                                    const std::string& sysfs_root,
                                                    const std::set<std::string>& w_ids) {
  return std::make_unique<PerfHardwareBackend>(thread_events, limits, sysfs_root, w_ids);
}

}  // namespace roofprof::counters
