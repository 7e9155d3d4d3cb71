#include "runplan/run_plan.hpp"

#include "common/error.hpp"

namespace roofprof::runplan {

using counters::BackendChoice;
using counters::BackendKind;
using counters::BackendRequest;

const char* to_string(Mechanism m) {
  switch (m) {
    case Mechanism::Breakpoints: return "breakpoint";
    case Mechanism::Agent: return "agent";
    case Mechanism::Combined: return "agent+breakpoint";
  }
  return "breakpoint";
}

namespace {

// Native counting patches the program's code as it loads, under ptrace: not with --no-ptrace,
// not into a running process (--pid). Under a launcher a rank runs once: no emulated pass.
BackendChoice native_for(const Request& r, BackendChoice choice, const Program& program,
                         const std::optional<LaunchInfo>& launch, const BackendChoice* without_native) {
  const std::string cannot =
      !r.launch    ? "native counting patches the program's code as it loads, so it cannot attach to a running process"
      : r.no_ptrace ? "native counting patches the program's code through ptrace, which --no-ptrace turns off"
      : !program.not_glibc.empty()
          ? "native counting keeps its counts in glibc's thread control block, and " + program.not_glibc
          : std::string();
  if (!cannot.empty()) {
    if (r.backend == BackendRequest::native)
      throw UserError("--backend native: " + cannot + "; use --backend emul or time");
    BackendChoice other = without_native ? *without_native : BackendChoice{BackendKind::time, cannot, {}};
    other.reason = cannot + "; " + other.reason;
    return other;
  }
  if (launch && choice.traffic_by_emulation) {
    choice.traffic_by_emulation = false;
    choice.warnings.push_back("a rank of an MPI job (" + launch->launcher + ") runs once: bytes (Q) below L1, which an "
                              "emulated run would measure, are not measured");
  }
  return choice;
}

}  // namespace

BackendChoice counting_for(const Request& r, BackendChoice choice, const Program& program,
                           const std::optional<LaunchInfo>& launch, const BackendChoice* without_native) {
  if (choice.kind == BackendKind::native) {
    choice = native_for(r, std::move(choice), program, launch, without_native);
    if (choice.kind == BackendKind::native) return choice;
  }
  if (choice.kind != BackendKind::emul) return choice;
  if (!r.launch) {
    if (r.backend == BackendRequest::emul)
      throw UserError("the emulation backend cannot attach to a running process; use --backend time with --pid");
    return BackendChoice{BackendKind::time, "attaching to a running process: time and software counters only", {}};
  }
  if (launch) {
    // The two-run method starts the program again; a launcher's rank cannot MPI_Init twice. Asked
    // for by name, emulation runs the rank once, under valgrind only (make_plan): W and Q, no T.
    if (r.backend == BackendRequest::emul)
      return BackendChoice{BackendKind::emul,
                           "a rank of an MPI job (" + launch->launcher + "): one emulated run (the launcher "
                           "starts a rank once), exact flops and bytes, time not measured (null)", {}};
    return BackendChoice{BackendKind::time,
                         "a rank of an MPI job (" + launch->launcher + "): the emulated run cannot start the rank "
                         "again; time and software counters only", {}};
  }
  return choice;
}

Plan make_plan(const Request& r, BackendChoice choice, bool agent_counts_events, const Program& program,
               const std::optional<LaunchInfo>& launch, const BackendChoice* without_native) {
  if (!r.launch && r.repeat > 1) throw UserError("--repeat cannot be used with --pid");
  if (launch && r.repeat > 1)
    throw UserError("--repeat under " + launch->launcher + ": a rank cannot start its program again inside "
                    "the job (MPI_Init fails); launch the job N times instead");
  if (r.no_ptrace && !r.launch)
    throw UserError("--no-ptrace cannot attach to a running process (--pid needs ptrace)");
  Plan p;
  p.counting = counting_for(r, std::move(choice), program, launch, without_native);
  p.native_counting = p.counting.kind == BackendKind::native;
  p.emulated_pass = p.counting.kind == BackendKind::emul || p.counting.traffic_by_emulation;
  p.emulated_traffic_only = p.native_counting && p.emulated_pass;
  p.emulated_marks_by_agent = p.emulated_pass && r.no_ptrace;
  const bool cold = r.cache_state == CacheState::Cold;
  if (cold) p.eviction = r.no_ptrace ? Eviction::Agent : Eviction::Tracer;
  if (launch && p.emulated_pass) {
    // A rank runs once: under valgrind, its regions marked by the in-process agent (no native
    // run resolved them for entry probes); the simulated caches are emptied by the tool.
    p.native_pass = false;
    p.emulated_marks_by_agent = true;
    p.eviction = Eviction::None;
    return p;
  }

  if (r.no_ptrace) {
    p.native = Mechanism::Agent;
    return p;
  }
  if (!r.preload) return p;  // --no-preload: breakpoints
  // The combined mode (docs/preload.md): the agent is loaded at start, and --cache-state cold
  // evicts at the tracer's entry breakpoints. With emulation it times the native run (the
  // emulated pass has probes of its own).
  if (!r.launch || cold) {
    if (r.preload_given)
      p.warnings.push_back("--preload has no effect with --pid or --cache-state cold: every region is measured "
                           "with breakpoints");
    return p;
  }
  const char* refusal = !agent_counts_events        ? "the in-process agent cannot count the run's events (memory-controller events are system-wide)"
                        : program.statically_linked ? "the program is statically linked"
                                                    : nullptr;
  if (refusal) {
    if (r.preload_given)
      p.warnings.push_back(std::string(refusal) + ": every region is measured with breakpoints (--preload has no effect)");
    return p;
  }
  p.native = Mechanism::Combined;
  return p;
}

void check_asks(const Request& request, const Plan& plan, const Asks& asks) {
  const std::string no_emulated_run =
      ": use --backend emul (or auto on a machine without hardware counters)";
  if (asks.cache_geometry && !plan.emulated_pass)
    throw UserError("--cache sets the caches the emulated run simulates, and this run has none" + no_emulated_run);
  if (asks.ceilings && !plan.emulated_pass)
    throw UserError("--ceilings gives the measured caches the emulated run simulates, and this run has none" +
                    no_emulated_run);
  if (asks.annotate && !plan.emulated_pass)
    throw UserError("--annotate counts each instruction in the emulated run, which this run has none of" +
                    no_emulated_run);
  if (asks.group_by == GroupBy::Caller && !plan.native_pass)
    throw UserError("--group-by " + asks.group_by_text +
                    ": the emulated run of an MPI rank records no call paths; use --backend time or perf under the "
                    "launcher");
  if (asks.group_by == GroupBy::Caller && asks.caller_depth > 1 && request.no_ptrace)
    throw UserError("--group-by " + asks.group_by_text +
                    ": with --no-ptrace the in-process agent records the caller only (caller or caller:1); deeper "
                    "paths are unwound at breakpoints");
}

}  // namespace roofprof::runplan
