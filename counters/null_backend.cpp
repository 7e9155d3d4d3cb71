// --backend time: no counters, wall time only.
#include "counters/backend.hpp"

namespace roofprof::counters {
namespace {

class NoCounters : public ThreadCounters {
 public:
  CounterValues read() override { return {}; }
};

class NullBackend : public Backend {
 public:
  std::string name() const override { return "time"; }
  const std::vector<EventInfo>& events() const override { return events_; }
  std::unique_ptr<ThreadCounters> open(pid_t) override { return std::make_unique<NoCounters>(); }

 private:
  std::vector<EventInfo> events_;
};

}  // namespace

std::unique_ptr<Backend> make_null_backend() { return std::make_unique<NullBackend>(); }

}  // namespace roofprof::counters
