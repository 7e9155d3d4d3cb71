// What `roofprof run` hears from its probe mechanisms (run::Observer), and what the mechanisms'
// callers ask of it without ptrace: the agent's settings.
#include "run/observer.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>

#include "counters/backend.hpp"
#include "run/agent_env.hpp"
#include "supervisor/run.hpp"

namespace roofprof::run {
namespace {

probes::Planner planner_of(const std::string& region) {
  return probes::Planner({regions::parse_region(region)});
}

struct Stream {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&text, &size);
  ~Stream() {
    if (f) std::fclose(f);
    std::free(text);
  }
  std::string str() {
    std::fflush(f);
    return std::string(text, size);
  }
};

TEST(Observer, ReadyAnnouncesTheBackendOnce) {
  auto planner = planner_of("work");
  CallGroups groups(planner);
  Stream out;
  Observer o(groups, {"backend time: no counters", "note: something"}, out.f);
  EXPECT_EQ(out.str(), "");
  o.ready();
  o.ready();  // a second exec, a second run of --repeat
  EXPECT_EQ(out.str(), "roofprof: backend time: no counters\nroofprof: note: something\n");
}

TEST(Observer, QuietSaysNothing) {
  auto planner = planner_of("work");
  CallGroups groups(planner);
  Stream out;
  Observer o(groups, {}, out.f);
  o.ready();
  EXPECT_EQ(out.str(), "");
}

TEST(Observer, KeysReturnsOnlyWhenGroupedByCaller) {
  auto planner = planner_of("work");
  CallGroups by_args(planner, 0), by_caller(planner, 1);
  EXPECT_FALSE(Observer(by_args, {}).keys_returns());
  EXPECT_TRUE(Observer(by_caller, {}).keys_returns());
}

TEST(Observer, EvictsBeforeOutermostEntriesOnlyWithAnEvictor) {
  auto planner = planner_of("work");
  CallGroups groups(planner);
  Observer o(groups, {});
  EXPECT_FALSE(o.acts_before_outermost_entry());
  CacheEvictor evictor(1 << 16);
  o.evict_with(&evictor);
  EXPECT_TRUE(o.acts_before_outermost_entry());
  o.before_outermost_entry(::gettid());
  o.before_outermost_entry(::gettid());
  EXPECT_EQ(evictor.evictions(), 2u);
}

// The agent records return addresses (ROOFPROF_AGENT_CALLERS) exactly when the observer keys them.
TEST(Observer, AgentRecordsCallersWhenTheObserverKeysReturns) {
  auto planner = planner_of("work");
  auto backend = counters::make_null_backend();
  for (int depth : {0, 1}) {
    CallGroups groups(planner, depth);
    Observer o(groups, {});
    supervisor::RunOptions so;
    so.observer = &o;
    auto settings = agent_settings(so, *backend, planner, "/tmp/records");
    EXPECT_EQ(settings.count("ROOFPROF_AGENT_CALLERS"), size_t(depth)) << depth;
  }
  supervisor::RunOptions unobserved;  // regions::no_observer(): no callers
  EXPECT_EQ(agent_settings(unobserved, *backend, planner, "/tmp/records").count("ROOFPROF_AGENT_CALLERS"), 0u);
}

}  // namespace
}  // namespace roofprof::run
