// The in-process agent alone (run/agent_run.hpp), driven by the run's request and outcome
// (supervisor/run.hpp) without any tracer type: what it cannot do is refused before the program
// starts and before the observer hears that the regions resolved.
#include "run/agent_run.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "regions/spec.hpp"
#include "supervisor/run.hpp"

namespace roofprof::run {
namespace {

struct ReadyCounter : regions::RunObserver {
  int ready_calls = 0;
  void ready() override { ++ready_calls; }
};

TEST(AgentRun, RefusesASpanBeforeTheProgramStarts) {
  probes::Planner planner({regions::parse_region("work"), regions::parse_span("loop=main..exit")});
  auto backend = counters::make_null_backend();
  regions::Tracker tracker([](regions::Instance&&) {});
  ReadyCounter observer;
  supervisor::RunOptions request;
  request.argv = {"/nonexistent/program-never-started"};  // the check comes before the program is looked up
  request.observer = &observer;
  try {
    run_with_agent(request, *backend, planner, tracker);
    FAIL() << "a span ran under the agent alone";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "--span loop=main..exit needs breakpoints: the in-process agent only hooks functions called through "
                 "the dynamic linker; run without --no-ptrace");
  }
  EXPECT_EQ(observer.ready_calls, 0);
}

}  // namespace
}  // namespace roofprof::run
