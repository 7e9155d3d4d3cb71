// perf_event software events: one group per thread, task-clock (or the first event) leads.
#include <set>

#include "common/error.hpp"
#include "counters/backend.hpp"
#include "counters/perf_group.hpp"
#include "counters/perf_thread_counters.hpp"
#include "counters/software_events.hpp"

namespace roofprof::counters {
namespace {

class PerfSoftwareBackend : public Backend {
 public:
  PerfSoftwareBackend(const std::vector<std::string>& names, bool user_level) {
    std::set<std::string> seen;
    for (const std::string& n : names) {
      const SoftwareEvent& e = find_software_event(n);
      if (!seen.insert(e.name).second) throw UserError("event '" + n + "' is listed twice");
      if (user_level && e.at_user_level == AtUserLevel::nothing)
        throw UserError("event '" + std::string(e.name) +
                        "' is counted in kernel mode, which this user may not count (perf_event_paranoid >= 2, "
                        "no CAP_PERFMON); leave it out, or run as root, with CAP_PERFMON or with "
                        "perf_event_paranoid <= 1");
      const std::string name = user_level ? user_level_name(e) : e.name;
      events_.push_back({name, e.unit});
      perf_event_attr attr = counting_attr(PERF_TYPE_SOFTWARE, e.config);
      attr.exclude_kernel = user_level ? 1 : 0;
      specs_.push_back({name, attr});
    }
  }
  std::string name() const override { return "perf"; }
  const std::vector<EventInfo>& events() const override { return events_; }
  std::vector<std::vector<perf_event_attr>> thread_groups() const override {
    std::vector<perf_event_attr> group;
    for (const EventSpec& s : specs_) group.push_back(s.attr);
    if (group.empty()) return {};
    return {group};
  }
  std::unique_ptr<ThreadCounters> open(pid_t tid) override {
    std::vector<PerfGroup> groups;
    if (!specs_.empty()) groups.emplace_back(tid, specs_);
    return std::make_unique<PerfThreadCounters>(std::move(groups));
  }

 private:
  std::vector<EventInfo> events_;
  std::vector<EventSpec> specs_;
};

}  // namespace

std::unique_ptr<Backend> make_perf_software_backend(std::vector<std::string> events, bool user_level) {
  if (events.empty())
    for (const std::string& n : default_software_events())
      if (!user_level || find_software_event(n).at_user_level != AtUserLevel::nothing) events.push_back(n);
  return std::make_unique<PerfSoftwareBackend>(events, user_level);
}

}  // namespace roofprof::counters
