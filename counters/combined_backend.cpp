#include "counters/combined_backend.hpp"

namespace roofprof::counters {
namespace {

class CombinedCounters : public ThreadCounters {
 public:
  explicit CombinedCounters(std::vector<std::unique_ptr<ThreadCounters>> parts)
      : parts_(std::move(parts)) {}
  CounterValues read() override {
    CounterValues out;
    for (auto& p : parts_) {
      CounterValues v = p->read();
      for (CounterGroupTimes g : v.groups) {
        g.first += out.values.size();
        out.groups.push_back(g);
      }
      out.values.insert(out.values.end(), v.values.begin(), v.values.end());
      out.multiplexed = out.multiplexed || v.multiplexed;
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<ThreadCounters>> parts_;
};

class CombinedBackend : public Backend {
 public:
  explicit CombinedBackend(std::vector<std::unique_ptr<Backend>> parts) : parts_(std::move(parts)) {
    for (const auto& p : parts_) {
      events_.insert(events_.end(), p->events().begin(), p->events().end());
      if (name_ == "time") name_ = p->name();
    }
  }
  std::string name() const override { return name_; }
  const std::vector<EventInfo>& events() const override { return events_; }
  std::vector<std::vector<perf_event_attr>> thread_groups() const override {
    std::vector<std::vector<perf_event_attr>> out;
    for (const auto& p : parts_)
      for (auto& g : p->thread_groups()) out.push_back(std::move(g));
    return out;
  }
  std::unique_ptr<ThreadCounters> open(pid_t tid) override {
    std::vector<std::unique_ptr<ThreadCounters>> opened;
    for (auto& p : parts_) opened.push_back(p->open(tid));
    return std::make_unique<CombinedCounters>(std::move(opened));
  }

 private:
  std::vector<std::unique_ptr<Backend>> parts_;
  std::vector<EventInfo> events_;
  std::string name_ = "time";
};

}  // namespace

std::unique_ptr<Backend> make_combined_backend(std::vector<std::unique_ptr<Backend>> parts) {
  return std::make_unique<CombinedBackend>(std::move(parts));
}

}  // namespace roofprof::counters
