#pragma once
// roofprof run --no-ptrace: the program runs as a plain child with the in-process agent
// (libroofprof-preload.so, preload/agent/) injected through LD_PRELOAD; no ptrace at all.
// The agent's record files are drained while the program runs and replayed into a
// regions::Tracker, so region semantics are the same as with breakpoints. docs/preload.md.
#include "counters/backend.hpp"
#include "probes/plan.hpp"
#include "regions/tracker.hpp"
#include "supervisor/run.hpp"

namespace roofprof::run {

// Runs so.argv once under the agent. Boundaries go to the run's `tracker`; regions are named by `planner`
// from the modules the agent reports. Throws UserError for what the agent cannot do (--pid,
// spans, a static executable, an event it cannot count) before starting the program.
supervisor::RunOutcome run_with_agent(const supervisor::RunOptions& so, counters::Backend& backend,
                                      probes::Planner& planner, regions::Tracker& tracker);

}  // namespace roofprof::run
