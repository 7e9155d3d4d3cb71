// roofprof run: trace a program (or attach to one) and measure regions.
#include <unistd.h>

#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "cli/agent_run.hpp"
#include "cli/assemble.hpp"
#include "cli/combined_run.hpp"
#include "cli/command.hpp"
#include "cli/emul_agent.hpp"
#include "cli/emul_merge.hpp"
#include "cli/groups.hpp"
#include "common/error.hpp"
#include "common/evict.hpp"
#include "common/launcher.hpp"
#include "counters/backend.hpp"
#include "counters/backend_choice.hpp"
#include "counters/run_backend.hpp"
#include "emul/emul.hpp"
#include "probes/plan.hpp"
#include "regions/aggregate.hpp"
#include "regions/spec.hpp"
#include "report/summary.hpp"
#include "result/result.hpp"
#include "tracer/session.hpp"
#include "tracer/wait_status.hpp"

namespace roofprof::cli {

namespace {

struct RunOptions {
  std::vector<std::string> regions;
  std::vector<std::string> spans;
  std::string output = "roofprof.json";
  int pid = 0;
  bool follow_fork = false;
  std::string scope = "process";
  int repeat = 1;
  std::string backend = "auto";
  std::vector<std::string> events;
  bool cache_sim = true;
  std::string cache_state = "warm";
  bool quiet = false;
  bool no_ptrace = false;
  bool preload = true;            // the combined mode: tracer + in-process agent (--no-preload: off)
  bool preload_given = false;     // --preload or --no-preload on the command line
  std::vector<std::string> command;
};

std::vector<std::string> cmdline_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

// The backend of this run: counters::choose_backend, except that the emulation backend's
// second run cannot start an attached process or an MPI rank again.
counters::BackendChoice backend_for(const RunOptions& o, const counters::Capabilities& caps,
                                    const std::optional<LaunchInfo>& launch) {
  auto choice = counters::choose_backend(o.backend, caps);
  if (choice.kind == counters::BackendKind::emul && o.pid) {
    if (o.backend == "emul")
      throw UserError("the emulation backend cannot attach to a running process; use --backend time with --pid");
    choice = counters::BackendChoice{counters::BackendKind::time,
                                     "attaching to a running process: time and software counters only", {}};
  }
  if (choice.kind == counters::BackendKind::emul && launch) {
    // The two-run method starts the program again; a launcher's rank cannot MPI_Init twice.
    if (o.backend == "emul")
      throw UserError("--backend emul under " + launch->launcher + ": the emulated run would start this rank's "
                      "program a second time, which the MPI launcher does not allow (MPI_Init fails); use "
                      "--backend time, or perf on a machine with hardware counters (docs/mpi.md)");
    choice = counters::BackendChoice{counters::BackendKind::time,
                                     "a rank of an MPI job (" + launch->launcher + "): the emulated run cannot "
                                     "start the rank again; time and software counters only", {}};
  }
  return choice;
}

int run(const RunOptions& o) {
  std::vector<regions::RegionSpec> specs;
  for (const auto& r : o.regions) specs.push_back(regions::parse_region(r));
  for (const auto& s : o.spans) specs.push_back(regions::parse_span(s));
  if (specs.empty())
    throw UserError("no region given: add --region FUNCTION or --span NAME=START..STOP (see roofprof run --help)");
  if (o.command.empty() && o.pid == 0) throw UserError("no program given: add -- PROGRAM [ARGS...] or --pid PID");
  if (!o.command.empty() && o.pid != 0) throw UserError("give either a program or --pid, not both");
  if (o.pid != 0 && o.repeat > 1) throw UserError("--repeat cannot be used with --pid");
  // Under mpirun / srun: which rank of which job this is, and -o's placeholders (docs/mpi.md).
  const auto launch = detect_launcher(process_environment());
  const std::string output = expand_output_name(o.output, {launch, result::describe_host().hostname, ::getpid()});
  if (launch && o.repeat > 1)
    throw UserError("--repeat under " + launch->launcher + ": a rank cannot start its program again inside "
                    "the job (MPI_Init fails); launch the job N times instead");

  auto caps = counters::probe_capabilities();
  auto choice = backend_for(o, caps, launch);
  bool emulate = choice.kind == counters::BackendKind::emul;
  auto counting = counters::make_run_counting(choice.kind, caps, o.events);
  auto& backend = counting.backend;
  std::string backend_name = backend->name();
  probes::Planner planner(specs);
  regions::Aggregator agg;

  CallGroups groups(planner);
  tracer::SessionOptions so;
  so.group_key = [&groups](regions::RegionId id, signatures::ArgReader& args) { return groups.key_for(id, args); };
  so.argv = o.command;
  so.attach_pid = o.pid;
  so.follow_fork = o.follow_fork;
  so.scope = o.scope == "thread" ? regions::Scope::Thread : regions::Scope::Process;
  if (!o.quiet) {
    // Said once the regions resolved, so that bad input gets exactly one line.
    so.on_ready = [choice] {
      std::fprintf(stderr, "roofprof: backend %s: %s\n", counters::to_string(choice.kind).c_str(), choice.reason.c_str());
      for (const auto& w : choice.warnings) std::fprintf(stderr, "roofprof: note: %s\n", w.c_str());
    };
  }
  // --cache-state cold outside emulation: the tracer evicts from this process at each
  // outermost region entry; the in-process agent evicts in the program (agent_settings passes
  // the size in its environment). The emulated run empties its simulated caches instead.
  std::unique_ptr<CacheEvictor> evictor;
  if (o.cache_state == "cold") {
    size_t bytes = 2 * emul::host_cache_geometry().back().size;  // UserError when sysfs has no caches
    if (o.no_ptrace) {
      so.agent_evict_bytes = bytes;
    } else {
      evictor = std::make_unique<CacheEvictor>(bytes);
      so.before_outermost_entry = [&evictor](pid_t tid) { evictor->evict(last_cpu_of(tid)); };
    }
  }
  tracer::Session::install_interrupt_handlers();

  result::Run res;
  res.tool_version = ROOFPROF_VERSION;
  res.command = o.pid ? cmdline_of(o.pid) : o.command;
  if (o.pid) res.pid = o.pid;
  res.backend = counters::to_string(choice.kind);
  res.scope = o.scope;
  res.repeat = o.repeat;
  res.cache_state = o.cache_state;
  res.host = result::describe_host();
  if (launch) res.job = result::Job{launch->launcher, launch->rank, launch->size, launch->job_id};
  for (const auto& e : backend->events()) res.events.push_back(e.name);

  // The combined mode (docs/preload.md): not with --pid (the agent is loaded at start), not
  // under emulation (the emulated run has its own probes), not with --cache-state cold (the
  // tracer evicts at its entry breakpoints), not into a static program or for hardware events.
  // Said in the result when --preload was asked for.
  bool combined = o.preload && !o.no_ptrace && !o.pid && !emulate && o.cache_state == "warm";
  if (combined) {
    if (auto why = combined_mode_refusal(*backend, o.command.at(0))) {
      combined = false;
      if (o.preload_given)
        res.warnings.push_back(*why + ": every region is measured with breakpoints (--preload has no effect)");
    }
  } else if (o.preload && o.preload_given && !o.no_ptrace) {
    res.warnings.push_back("--preload has no effect with --pid, --backend emul or --cache-state cold: every region "
                           "is measured with breakpoints");
  }
  std::map<regions::RegionId, std::set<std::string>> mechanisms;  // "agent", "breakpoint"
  auto needs_arguments = [&groups](regions::RegionId id) { return groups.has_signature(id); };

  tracer::SessionOutcome last;
  for (int r = 0; r < o.repeat; ++r) {
    agg.next_run();
    auto sink = [&](regions::Instance&& inst) {
      agg.add(inst);
      groups.add(inst);
    };
    if (o.no_ptrace) {
      last = run_with_agent(so, *backend, planner, sink);
    } else if (combined) {
      tracer::SessionOptions with_agent = so;
      CombinedAgent agent(with_agent, *backend, planner, sink, needs_arguments);
      agent.attach(with_agent);
      tracer::Session session(with_agent, *backend, planner, sink);
      last = session.run();
      agent.finish(last);
      agent.add_mechanisms(mechanisms);
    } else {
      tracer::Session session(so, *backend, planner, sink);
      last = session.run();
    }
    so.on_ready = nullptr;  // the backend is announced once, not once per repeat
    res.wall_time_s += last.wall_time_s;
    if (last.cache_evictions) res.cache_evictions = res.cache_evictions.value_or(0) + *last.cache_evictions;
    for (auto& w : last.warnings) res.warnings.push_back(w);
    if (!last.complete) break;  // interrupted: keep what was measured, do not start again
  }
  if (evictor) res.cache_evictions = evictor->evictions();
  res.exit_status = last.exit_status;
  res.term_signal = last.term_signal;
  res.complete = last.complete;
  res.regions = assemble_regions(planner, agg, backend->events(), backend_name, counting.event_set);
  for (auto& w : planner_notes(planner)) res.warnings.push_back(std::move(w));
  // Which probe mechanism gave each region's calls and times (docs/result-schema.md).
  for (size_t id = 0; id < res.regions.size(); ++id) {
    std::string calls = o.no_ptrace ? "agent" : "breakpoint";
    if (combined) {
      auto it = mechanisms.find(regions::RegionId(id));
      if (it == mechanisms.end()) continue;  // never planned: nothing measured it
      calls = it->second.size() > 1 ? "agent+breakpoint" : *it->second.begin();
    }
    res.regions[id].sources["calls"] = calls;
  }
  std::string emulation_error;
  if (emulate && last.complete) {
    // Second run of the two-run method: exact W and Q under emulation.
    emul::Options eo;
    eo.scope = so.scope;
    eo.cache_sim = o.cache_sim;
    eo.cold_at_entry = o.cache_state == "cold";
    eo.follow_exec = o.follow_fork;
    eo.progress = isatty(2) && !o.quiet;
    eo.region_name = [&planner](regions::RegionId id) { return planner.regions().at(id).name; };
    if (!o.quiet) std::fprintf(stderr, "roofprof: emulated run for exact flops and bytes (the program runs again)\n");
    try {
      // The emulated run marks regions the way the native run did: with --no-ptrace the agent's
      // hooks (client requests to the tool), otherwise entry probes where breakpoints were.
      std::vector<emul::Probe> probes;
      if (o.no_ptrace) eo.agent = emulation_agent(planner);
      else probes = emulation_probes(planner);
      auto emulated = emul::run(o.command, probes, eo);
      for (auto& w : merge_emulated(res.regions, emulated, o.cache_sim)) res.warnings.push_back(std::move(w));
      groups.add_emulated(emulated);
    } catch (const UserError& e) {
      // Keep what the native run measured, then fail as bad input does.
      emulation_error = e.what();
      res.warnings.push_back(std::string("emulated run failed: ") + e.what());
    }
  }
  groups.fill(res.regions, res.events);
  result::write_atomic(res, output);
  if (!o.quiet) {
    report::print_summary(res, stderr);
    std::fprintf(stderr, "roofprof: results in %s\n", output.c_str());
  }
  if (!emulation_error.empty()) throw UserError(emulation_error + " (time and counters of the native run are in " + output + ")");
  if (last.term_signal) {
    std::fprintf(stderr, "roofprof: program killed by %s\n", tracer::signal_name(*last.term_signal).c_str());
    return 128 + *last.term_signal;
  }
  return last.exit_status.value_or(0);
}

}  // namespace

Runner setup_run(CLI::App& sub, const std::vector<std::string>& program) {
  auto o = std::make_shared<RunOptions>();
  sub.add_option("--region,-r", o->regions, "function region: a name, mangled or demangled C++ name, or glob")
      ->take_all();
  sub.add_option("--span", o->spans, "span region NAME=START..STOP (symbols, FILE:LINE or addresses)");
  sub.add_option("-o,--output", o->output,
                 "result file (an existing one is kept as FILE.old); %r rank, %s job size, %h host, %p pid, "
                 "%j job id; under mpirun/srun the rank is added when %r is absent (docs/mpi.md)");
  sub.add_option("--pid,-p", o->pid, "attach to a running process instead of launching one");
  sub.add_flag("--follow-fork", o->follow_fork, "measure child processes too");
  sub.add_option("--scope", o->scope, "counts of the whole process or of the entering thread only")
      ->check(CLI::IsMember({"process", "thread"}));
  sub.add_option("--repeat", o->repeat, "run the program N times and aggregate")->check(CLI::PositiveNumber);
  sub.add_option("--backend", o->backend, "how to count: auto, perf, emul or time")
      ->check(CLI::IsMember({"auto", "perf", "emul", "time"}));
  sub.add_option("--events,-e", o->events, "perf events to count (default: task-clock,page-faults,context-switches)")
      ->delimiter(',');
  sub.add_flag("!--no-cache-sim", o->cache_sim, "emulation backend: no cache simulation (L1 traffic only)");
  sub.add_option("--cache-state", o->cache_state,
                 "warm: the program as it runs; cold: caches evicted before each outermost region call "
                 "(docs/methodology.md)")
      ->check(CLI::IsMember({"warm", "cold"}));
  sub.add_flag("--quiet,-q", o->quiet, "no summary on stderr");
  sub.add_flag("--no-ptrace", o->no_ptrace,
               "measure with the in-process agent alone (LD_PRELOAD, no ptrace): only functions called "
               "through the dynamic linker (docs/preload.md)");
  auto* preload = sub.add_flag("--preload,!--no-preload", o->preload,
                               "combined mode (default): the in-process agent (LD_PRELOAD) measures the functions "
                               "every call of which goes through the dynamic linker, breakpoints the rest; "
                               "--no-preload: breakpoints only (docs/preload.md)");
  sub.footer(kProgramFooter);
  return [o, preload, &program] {
    o->preload_given = preload->count() > 0;
    o->command = program;
    return run(*o);
  };
}

}  // namespace roofprof::cli
