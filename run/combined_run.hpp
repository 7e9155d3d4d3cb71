#pragma once
// roofprof run --preload: the combined mode (docs/preload.md, "The combined mode"). The tracer
// runs the program with the in-process agent in LD_PRELOAD; the agent measures the function
// sites whose every call goes through the dynamic linker, the tracer plants breakpoints for
// the rest, and the agent's records are drained while the tracer waits (and before it applies
// a boundary) into the run's one tracker, which the tracer feeds too: a region whose sites are
// split between the two is counted once at its outermost call. Each function site is measured
// by exactly one of them.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "run/agent_env.hpp"
#include "counters/backend.hpp"
#include "preload/collector.hpp"
#include "probes/plan.hpp"
#include "runplan/run_plan.hpp"
#include "supervisor/run.hpp"
#include "tracer/agent_link.hpp"
#include "tracer/session.hpp"

namespace roofprof::run {

class CombinedAgent final : public tracer::AgentLink {
 public:
  // `needs_arguments`: regions whose calls are grouped by their arguments at entry
  // (signatures/): they keep breakpoints, where the tracer reads the argument registers.
  // `patch`: the tracer may patch function entries for the agent (false: --no-patch).
  CombinedAgent(const supervisor::RunOptions& so, const counters::Backend& backend, probes::Planner& planner,
                regions::Tracker& tracker, std::function<bool(regions::RegionId)> needs_arguments, bool patch = true);
  // Points so.agent at this object, which must outlive the session.
  void attach(tracer::SessionOptions& so);
  // After the session: drains what is left, adds the agent's warnings and what it did not see.
  void finish(supervisor::RunOutcome& out);
  // region -> the mechanisms that measured its sites ("patch", "agent", "breakpoint").
  void add_mechanisms(std::map<regions::RegionId, std::set<std::string>>& out) const;

  // tracer::AgentLink
  std::set<uint64_t> take(pid_t tgid, const symbolizer::LoadedModule& m, bool is_main,
                          const std::vector<probes::PlannedProbe>& planned) override;
  std::optional<std::string> patch_refusal(const std::vector<regions::RegionId>& regions) const override;
  uint32_t patched(const std::vector<regions::RegionId>& regions) override;
  void publish(pid_t tgid) override;
  void forked(pid_t parent, pid_t child) override;
  size_t wait_and_drain(const std::function<bool()>& quiet) override;
  void catch_child_signal(bool on) override;
  size_t drain() override;
  size_t drain_exiting(pid_t tgid) override;
  void root_ended(pid_t pid, int64_t end_ns, int term_signal) override;
  std::map<regions::RegionId, double> probe_cost_ns() const override { return collector_.probe_cost_ns(); }
  void stop_probing(regions::RegionId region) override { collector_.stop_probing(region); }
  char* const* child_env() override;

 private:
  probes::Planner& planner_;
  std::function<bool(regions::RegionId)> needs_arguments_;
  bool patch_ = true;
  RecordDir dir_;
  ChildEnv env_;
  preload::Collector collector_;
  std::unique_ptr<preload::Doorbell::ChildSignal> child_signal_;
  std::map<pid_t, std::set<uint64_t>> sites_;  // absolute entry addresses the agent may hook
  std::map<pid_t, std::set<std::string>> ifunc_names_;  // IFUNCs the agent may hook, by name
  std::set<regions::RegionId> by_agent_, by_breakpoint_, by_patch_;
  pid_t root_ = 0;
};

// What the plan needs to know of `program` (as typed: found on PATH, as exec would): whether it
// is an ELF without a dynamic linker, where LD_PRELOAD does nothing, and whether its threads'
// control blocks are glibc's (native counting keeps its counts there). Nothing of a script (its
// interpreter runs) or of what cannot be read (the tracer says what is wrong with it).
runplan::Program program_facts(const std::string& program);

}  // namespace roofprof::run
