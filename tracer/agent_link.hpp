#pragma once
// The in-process agent running alongside the tracer (`roofprof run --preload`, the combined
// mode, docs/preload.md): it measures the function sites it can hook, the tracer plants
// breakpoints for the rest, and the agent's records are drained while the tracer waits for
// stops. The tracer only sees this interface (the agent side lives in cli/ and preload/).
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.hpp"
#include "probes/plan.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::tracer {

// The in-process agent's library, as the program maps it.
inline constexpr std::string_view kAgentModule = "libroofprof-preload.so";

// Modules whose functions the agent never measures (no entry patch, no GOT hook): the agent
// itself, whose code runs inside every such probe, and the dynamic linker.
inline bool agent_never_measures(std::string_view module_path) {
  std::string_view base = path_basename(module_path);
  return base == kAgentModule || base.rfind("ld-linux", 0) == 0;
}

class AgentLink {
 public:
  virtual ~AgentLink() = default;
  // Of the probes planned for module `m` of process `tgid`, the link-time addresses of the
  // function entries the agent measures: no breakpoint is planted there.
  virtual std::set<uint64_t> take(pid_t tgid, const symbolizer::LoadedModule& m, bool is_main,
                                  const std::vector<probes::PlannedProbe>& planned) = 0;
  // Why the agent may not measure a function entry of `regions` that the tracer patches
  // (preload/patch_format.h), nullopt when it may: not with --no-patch, nor when a region's
  // calls are grouped by their arguments, which the tracer reads at a breakpoint.
  virtual std::optional<std::string> patch_refusal(const std::vector<regions::RegionId>& regions) const = 0;
  // The tracer patched a function entry of `regions`: the region word the agent's records of
  // it carry (RP_PATCH_REGION_FLAG | id).
  virtual uint32_t patched(const std::vector<regions::RegionId>& regions) = 0;
  // Every take() of one module scan of `tgid` is done: tell the agent (before it hooks).
  virtual void publish(pid_t tgid) = 0;
  // A followed fork child: same address space as its parent at the fork.
  virtual void forked(pid_t parent, pid_t child) = 0;
  // Waits for the agent's records without polling (preload::Collector::wait_and_drain): calls
  // `quiet` once the wait is armed (the tracer's waitpid(WNOHANG): false when a stop came), and
  // sleeps unless it returns false or a ring is past its mark. Returns the number replayed.
  virtual size_t wait_and_drain(const std::function<bool()>& quiet) = 0;
  // While on, SIGCHLD (any tracee stop) cuts that sleep short.
  virtual void catch_child_signal(bool on) = 0;
  // Drains the records already published in the files being read (cheap: called before the
  // tracer applies a boundary, so the run's one tracker sees each thread's boundaries in order).
  virtual size_t drain() = 0;
  // A thread of `tgid` is exiting: drains every record its threads have claimed so far (waiting
  // briefly for slots claimed but not yet written), so that the thread's returns come first.
  virtual size_t drain_exiting(pid_t tgid) = 0;
  // The program roofprof started ended (reaped) at `end_ns`, killed by `term_signal` (0: it exited).
  virtual void root_ended(pid_t pid, int64_t end_ns, int term_signal) = 0;
  // What the agent's probes of each region have cost the program so far, in ns of its threads'
  // time (their calls replayed so far, each at the cost its calibration measured for a call
  // with or without counters): the probe budget's share of the in-process mechanisms.
  virtual std::map<regions::RegionId, double> probe_cost_ns() const = 0;
  // The agent no longer probes `region` (the probe budget): no new instance of it opens.
  virtual void stop_probing(regions::RegionId region) = 0;
  // The environment of the launched program (LD_PRELOAD and the agent's settings), built in the
  // child after fork: async-signal-safe.
  virtual char* const* child_env() = 0;
};

}  // namespace roofprof::tracer
