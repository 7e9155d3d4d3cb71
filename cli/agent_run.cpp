#include "cli/agent_run.hpp"

#include "common/error.hpp"

namespace roofprof::cli {

tracer::SessionOutcome run_with_agent(const tracer::SessionOptions&, counters::Backend&, probes::Planner&,
                                      const regions::Tracker::Sink&) {
  throw UserError("--no-ptrace is not available in this build yet");
}

}  // namespace roofprof::cli
