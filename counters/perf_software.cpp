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
  explicit PerfSoftwareBackend(const std::vector<std::string>& names) {
    std::set<std::string> seen;
    for (const std::string& n : names) {
      const SoftwareEvent& e = find_software_event(n);
      if (!seen.insert(n).second) throw UserError("event '" + n + "' is listed twice");
      events_.push_back({e.name, e.unit});
      specs_.push_back({e.name, counting_attr(PERF_TYPE_SOFTWARE, e.config)});
    }
  }
  std::string name() const override { return "perf"; }
  const std::vector<EventInfo>& events() const override { return events_; }
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

std::unique_ptr<Backend> make_perf_software_backend(std::vector<std::string> events) {
  if (events.empty()) events = default_software_events();
  return std::make_unique<PerfSoftwareBackend>(events);
}

}  // namespace roofprof::counters
