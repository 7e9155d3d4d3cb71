#pragma once
// A run of the program, whatever measures it (breakpoints, the in-process agent alone, the
// combined mode): what the orchestration asks of it (RunOptions) and what came of it
// (RunOutcome). run::run_with_agent() takes and returns them; the tracer's session
// (tracer::SessionOptions, tracer::SessionOutcome) extends them with what only the tracer
// does.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/overhead.hpp"
#include "native/patched_module.hpp"
#include "regions/run_observer.hpp"
#include "regions/tracker.hpp"
#include "supervisor/ending.hpp"

namespace roofprof::supervisor {

struct RunOptions {
  std::vector<std::string> argv;  // program to launch (empty when attaching)
  pid_t attach_pid = 0;  // --pid
  bool follow_fork = false;  // measure child processes too
  regions::Scope scope = regions::Scope::Process;
  // run --max-probe-slowdown: when probes would make the run more than this many times slower
  // than without them, the costliest stop (breakpoints: tracer/session_cost.cpp); 0: never.
  double max_probe_slowdown = 10;
  // Told when the regions resolved, asked for the group key of a call, told before an outermost
  // entry (regions/run_observer.hpp; not owned).
  regions::RunObserver* observer = &regions::no_observer();
  // --cache-state cold with the in-process agent (--no-ptrace): the agent evicts with a buffer
  // this big before each outermost entry (0: warm).
  size_t agent_evict_bytes = 0;
  // The in-process agent counts software events without their kernel side (an unprivileged
  // user at perf_event_paranoid >= 2), as the tracer's backend does.
  bool agent_user_level = false;
  // The in-process agent reads counters only on regions whose calls last this many times what
  // the counters add to a call (docs/preload.md, "What a boundary costs"); 0: on every call.
  uint32_t agent_cheap_factor = 0;
  // Regions a survey chose (run --regions-from) that the in-process agent stops probing when
  // their calls are shorter than agent_skip_factor times what its probe costs a call.
  std::set<regions::RegionId> agent_skip_if_frequent;
  double agent_skip_factor = 0;
  // Native counting (docs/native.md): every module's floating-point code counts its flops in
  // each thread's slots (preload/native_format.h), patched as the module is mapped.
  bool native_counting = false;
};

struct RunOutcome {
  Ending ending;  // the program's exit code or the signal that killed it
  bool complete = true;  // false: interrupted or detached before the program ended
  double wall_time_s = 0;
  std::vector<std::string> warnings;
  std::optional<uint64_t> cache_evictions;  // --cache-state cold: evictions made; null: none asked
  // Regions whose breakpoints cost a large part of the run, or that were no longer probed.
  std::map<regions::RegionId, overhead::ProbeCost> probe_costs;
  // The in-process agent's boundary cost, from its calibration at start (when it measured).
  std::optional<overhead::AgentBoundary> agent_boundary;
  // Native counting: each module mapped, as patched (native_counting).
  std::vector<native::PatchedModule> native;
  // What draining the agent's records cost roofprof (when the agent ran).
  std::optional<overhead::AgentReader> agent_reader;
};

}  // namespace roofprof::supervisor
