// roofprof run: trace a program (or attach to one) and measure regions.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>

#include "run/agent_env.hpp"
#include "run/agent_run.hpp"
#include "run/assemble.hpp"
#include "cli/cache_geometry_option.hpp"
#include "run/measured_geometry.hpp"
#include "run/combined_run.hpp"
#include "cli/command.hpp"
#include "run/unseen_functions.hpp"
#include "common/program.hpp"
#include "run/emul_agent.hpp"
#include "run/emul_merge.hpp"
#include "run/emulated_pass.hpp"
#include "run/groups.hpp"
#include "cli/number_option.hpp"
#include "run/observer.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/evict.hpp"
#include "common/launcher.hpp"
#include "common/output_file.hpp"
#include "common/strings.hpp"
#include "counters/backend.hpp"
#include "counters/backend_choice.hpp"
#include "counters/native_counters.hpp"
#include "counters/run_backend.hpp"
#include "ceilings/store.hpp"
#include "emul/cache_geometry.hpp"
#include "emul/emul.hpp"
#include "probes/plan.hpp"
#include "regions/aggregate.hpp"
#include "regions/spec.hpp"
#include "runplan/run_plan.hpp"
#include "report/summary.hpp"
#include "result/result.hpp"
#include "supervisor/ending.hpp"
#include "supervisor/run.hpp"
#include "supervisor/signals.hpp"
#include "survey/select.hpp"
#include "tracer/session.hpp"

namespace roofprof::cli {

namespace {

using namespace roofprof::run;  // the orchestration (run/): cli parses options and prints

// Counters are read on a region's boundaries when its calls last at least this many times what
// the counters add to a call (docs/preload.md, "What a boundary costs"): below, the two reads
// would be more than 2 % of each call.
constexpr uint32_t kCheapCountersFactor = 50;
// A region a survey chose (--regions-from) whose calls last less than this many times what its
// in-process probe costs a call is no longer probed after its first calls: the probe would be a
// third of its time or more, and more in the regions around it.
constexpr double kSurveySkipFactor = 2;
// What emulation costs a program, for native counting's emulated pass (--emul-budget): the
// slowest factor measured on real programs (docs/benchmarks.md: 12-40x), so that the estimate
// errs towards skipping.
constexpr double kEmulationSlowdown = 40;
// The most distinct regions one run takes (docs/methodology.md): each is matched against every
// symbol of every module the program loads.
constexpr size_t kMaxRegions = 1000;

struct RunOptions {
  std::vector<std::string> regions;
  std::vector<std::string> spans;
  std::string regions_from;  // a survey result (roofprof survey -o): its functions are regions
  std::string output = "roofprof.json";
  bool output_given = false;  // -o: that name; else roofprof.json, or roofprof.N.json when another run holds it
  int pid = 0;
  bool follow_fork = false;
  regions::Scope scope = regions::Scope::Process;
  int repeat = 1;
  double max_probe_slowdown = 10;  // 0: probe every call whatever it costs
  counters::BackendRequest backend = counters::BackendRequest::automatic;
  // Native counting's emulated pass runs when it should take less than this; not given: it does
  // not run (the default run stays within a few times the program's own time, docs/native.md).
  std::optional<double> emul_budget_s;
  std::vector<std::string> events;
  std::string event_dir;  // --event-dir: user event sets (counters/user_event_sets.hpp)
  bool cache_sim = true;
  runplan::CacheState cache_state = runplan::CacheState::Warm;
  std::string cache_last_level = "host";  // host | inclusive | non-inclusive
  std::string cache_geometry;             // --cache as given; "": the host's caches
  std::vector<CacheInfo> cache_levels;    // its levels (cache_option)
  std::optional<bool> last_inclusive;     // --cache's or --cache-last-level's; null: as the host's
  std::string ceilings;                   // --ceilings: the measured hierarchy's file; "": this machine's cache
  bool quiet = false;
  bool no_ptrace = false;
  bool preload = true;            // the combined mode: tracer + in-process agent (--no-preload: off)
  bool preload_given = false;     // --preload or --no-preload on the command line
  bool patch = true;              // combined mode: entry patches (--no-patch: GOT hooks and breakpoints only)
  std::string group_by = "args";  // args | caller[:DEPTH]
  bool annotate = false;          // counts per instruction of the function regions (emulated run)
  std::vector<std::string> command;
};

// --group-by: 0 for args, else the depth of caller[:DEPTH].
int caller_depth(const std::string& how) {
  if (how == "args") return 0;
  if (how == "caller") return 1;
  if (how.rfind("caller:", 0) == 0) {
    const std::string n = how.substr(7);
    if (!n.empty() && n.size() <= 2 && n.find_first_not_of("0123456789") == std::string::npos && std::stoi(n) >= 1 &&
        std::stoi(n) <= 32)
      return std::stoi(n);
  }
  throw UserError("--group-by " + how + ": expected args (the default), caller or caller:DEPTH (DEPTH 1 to 32)");
}

std::vector<std::string> cmdline_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

runplan::Request request_of(const RunOptions& o) {
  runplan::Request r;
  r.backend = o.backend;
  r.launch = o.pid == 0;
  r.repeat = o.repeat;
  r.no_ptrace = o.no_ptrace;
  r.preload = o.preload;
  r.preload_given = o.preload_given;
  r.cache_state = o.cache_state;
  return r;
}

runplan::Asks asks_of(const RunOptions& o, const CallGroups& groups) {
  runplan::Asks a;
  a.cache_geometry = !o.cache_levels.empty();
  a.ceilings = !o.ceilings.empty();
  a.annotate = o.annotate;
  a.group_by = groups.by_caller() ? runplan::GroupBy::Caller : runplan::GroupBy::Args;
  a.caller_depth = std::max(groups.caller_depth(), 1);
  a.group_by_text = o.group_by;
  return a;
}

// The regions as given, each once (a region given twice is measured once), at most
// kMaxRegions of them: every region is matched against every symbol of every module loaded.
std::vector<regions::RegionSpec> distinct_regions(std::vector<regions::RegionSpec> specs) {
  std::set<std::string> seen;
  std::vector<regions::RegionSpec> out;
  for (auto& s : specs)
    if (seen.insert(s.text).second) out.push_back(std::move(s));
  if (out.size() > kMaxRegions)
    throw UserError(fmt::format("{} regions given, more than the {} roofprof measures in one run: use globs "
                                "('solver_*') for families of functions, or several runs",
                                out.size(), kMaxRegions));
  return out;
}

// Everything the run measures with, from the plan.
struct Measuring {
  runplan::Plan plan;
  counters::RunCounting counting;
};

Measuring plan_run(const RunOptions& o, const std::optional<LaunchInfo>& launch) {
  runplan::Request req = request_of(o);
  auto caps = counters::probe_capabilities(counters::catalog_with_user_sets(o.event_dir));
  const counters::BackendChoice without_native = counters::choose_without_native(caps, "");
  runplan::Program program;
  if (req.launch && !req.no_ptrace) program = program_facts(o.command.at(0));
  auto choice = runplan::counting_for(req, counters::choose_backend(o.backend, caps), program, launch, &without_native);
  // Under emulation the native run is there for T, and under native counting W is read from
  // memory: software counters would add two read() system calls to every region call (1 us each
  // on the development VM), which disturb short calls' time more than they tell. They are
  // counted when asked for (--events).
  std::vector<std::string> events = o.events;
  if ((choice.kind == counters::BackendKind::emul || choice.kind == counters::BackendKind::native) && events.empty())
    events = {"none"};
  auto counting = counters::make_run_counting(choice.kind, caps, events, o.scope == regions::Scope::Process);
  const bool agent_counts = agent_counts_events(*counting.backend);
  return Measuring{runplan::make_plan(req, std::move(choice), agent_counts, program, launch, &without_native),
                   std::move(counting)};
}

struct NativeRuns {
  supervisor::RunOutcome last;
  std::map<regions::RegionId, std::set<std::string>> mechanisms;  // combined mode: "agent", "breakpoint", "patch"
  std::map<regions::RegionId, result::ProbeCost> probe_costs;     // summed over the runs of --repeat
};

// The native run(s) of the plan: --repeat times, or until one is interrupted. Instances go to
// `sink` through one tracker per run, whatever the mechanism.
NativeRuns run_native(const RunOptions& o, const runplan::Plan& plan, counters::Backend& backend,
                      probes::Planner& planner, CallGroups& groups, supervisor::RunOptions so,
                      const regions::Tracker::Sink& sink, result::Run& res, regions::Aggregator& agg) {
  NativeRuns out;
  auto needs_arguments = [&groups](regions::RegionId id) { return groups.keyed_at_entry(id); };
  for (int r = 0; r < o.repeat; ++r) {
    if (r > 0 && supervisor::interrupted()) {
      out.last.complete = false;  // a request between two runs: the next one is not started
      break;
    }
    agg.next_run();
    regions::Tracker tracker(sink, so.scope);  // one tracker per run: every mechanism of the run feeds it
    supervisor::RunOutcome& last = out.last;
    switch (plan.native) {
      case runplan::Mechanism::Agent: last = run_with_agent(so, backend, planner, tracker); break;
      case runplan::Mechanism::Combined: {
        tracer::SessionOptions with_agent(so);
        CombinedAgent agent(with_agent, backend, planner, tracker, needs_arguments, o.patch);
        agent.attach(with_agent);
        tracer::Session session(with_agent, backend, planner, tracker);
        last = session.run();
        agent.finish(last);
        agent.add_mechanisms(out.mechanisms);
        break;
      }
      case runplan::Mechanism::Breakpoints: {
        tracer::Session session(tracer::SessionOptions(so), backend, planner, tracker);
        last = session.run();
        break;
      }
    }
    res.wall_time_s = res.wall_time_s.value_or(0) + last.wall_time_s;
    if (last.cache_evictions) res.cache_evictions = res.cache_evictions.value_or(0) + *last.cache_evictions;
    for (auto& w : last.warnings) res.warnings.push_back(w);
    for (const auto& [id, c] : last.probe_costs) out.probe_costs[id] += c;
    if (!last.complete) break;  // interrupted: keep what was measured, do not start again
  }
  return out;
}

// Which probe mechanism gave each region's calls and times (docs/result-schema.md).
void note_mechanisms(const runplan::Plan& plan, const NativeRuns& native, std::vector<result::Region>& regions) {
  for (size_t id = 0; id < regions.size(); ++id) {
    std::string calls = runplan::to_string(plan.native);
    if (plan.native == runplan::Mechanism::Combined) {
      auto it = native.mechanisms.find(regions::RegionId(id));
      if (it == native.mechanisms.end()) continue;  // never planned: nothing measured it
      calls.clear();  // "agent", "breakpoint", "patch", or several joined by '+'
      for (const std::string& m : it->second) calls += (calls.empty() ? "" : "+") + m;
    }
    regions[id].sources["calls"] = calls;
  }
  for (const auto& [id, c] : native.probe_costs) regions.at(id).probe_cost = c;
}

// Attached (--pid), the calls are measured by breakpoints: what their stops add to each call, from
// the stops counted and the stop cost measured (on a child of roofprof's: tracer/session_cost.cpp).
void note_attached_probe_cost(result::Run& res) {
  for (const auto& r : res.regions) {
    if (!r.probe_cost || r.calls == 0 || r.probe_cost->ptrace_stops == 0) continue;
    const result::ProbeCost& c = *r.probe_cost;
    res.warnings.push_back(fmt::format(
        "region '{}': attached (--pid), so its calls are measured by breakpoints: {:.1f} ptrace stops a call at "
        "about {:.1f} us each (measured on this machine), about {:.1f} us a call, {:.3g} s in all: its times "
        "include that (estimated); a run that starts the program measures exported and patchable functions "
        "in-process",
        r.name, double(c.ptrace_stops) / double(r.calls), c.estimated_s / double(c.ptrace_stops) * 1e6,
        c.estimated_s / double(r.calls) * 1e6, c.estimated_s));
  }
}

// The in-process probes' own cost (docs/preload.md, "What a boundary costs"): measured by the
// agent at start, kept in the result, and said for each region measured only by the agent
// (entry patches, GOT hooks) whose time it inflates by more than 5 %. The warning quotes the
// result's own figures (agent_boundary.per_call_s and inside_s), and with counters says that
// `-e none` times the calls without reading them.
std::string agent_overhead_warning(const result::Region& r, const result::AgentBoundary& b,
                                   const std::vector<std::string>& events) {
  const double inside = double(r.calls) * b.inside_s;
  const double measured = r.compensation ? r.compensation->time_measured_s : *r.time_s;
  std::string w = fmt::format(
      "region '{}': about {:.0f} % of its time is the in-process probe's own work: each call costs the program "
      "{:.3f} us more (agent_boundary.per_call_s, measured at start-up), {:.3f} us of it inside the call's time "
      "(agent_boundary.inside_s): its time per call is overhead-inflated",
      r.name, std::min(100.0, 100.0 * inside / measured), b.per_call_s * 1e6, b.inside_s * 1e6);
  if (r.compensation)
    w += fmt::format(" (compensation took {:.3g} s of probe time off its {:.3g} s measured; the rest of the "
                     "probe's work inside its calls remains)",
                     r.compensation->subtracted_s(), measured);
  // `events`: the result's, which leave out native counting's classes (read from memory)
  if (!events.empty())
    w += fmt::format("; each boundary also reads the {} counter{} with system calls: -e none times the calls "
                     "without them",
                     events.size(), events.size() == 1 ? "" : "s");
  return w;
}

void note_agent_overhead(const std::optional<result::AgentBoundary>& boundary, result::Run& res) {
  res.agent_boundary = boundary;
  if (!boundary) return;
  for (const auto& r : res.regions) {
    auto src = r.sources.find("calls");
    if (src == r.sources.end() || (src->second != "patch" && src->second != "agent") || r.calls == 0 ||
        !r.time_s || *r.time_s <= 0)
      continue;
    const double measured = r.compensation ? r.compensation->time_measured_s : *r.time_s;
    if (double(r.calls) * boundary->inside_s <= 0.05 * measured) continue;
    res.warnings.push_back(agent_overhead_warning(r, *boundary, res.events));
  }
}

// "unknown region 'X': ..." for the first region the program never had, after it ran to its end.
std::optional<std::string> never_found_error(const probes::Planner& planner, const std::string& output) {
  auto unresolved = planner.unresolved();
  if (unresolved.empty()) return std::nullopt;
  const auto& u = unresolved.front();
  return fmt::format("unknown region '{}': {} (never found while the program ran; the result is in {})", u.spec,
                     u.why.empty() ? "no module the program loaded has it" : u.why, output);
}

// The emulated pass of the two-run method (exact W and Q), of native counting (the bytes below
// L1) or an MPI rank's only run: the program under valgrind, its regions marked the way the
// native run marked them; what the pass's end means for the result is run/emulated_pass's.
PassOutcome run_emulated(const RunOptions& o, const runplan::Plan& plan, probes::Planner& planner, CallGroups& groups,
                         result::Run& res) {
  emul::Options eo;
  eo.scope = o.scope;
  eo.cache_sim = o.cache_sim;
  eo.last_level_inclusive = o.last_inclusive;
  eo.cold_at_entry = plan.eviction != runplan::Eviction::None;
  eo.follow_exec = o.follow_fork;
  eo.progress = progress_output(o.quiet);
  uint64_t native_calls = 0;  // summed over the runs of --repeat; the emulated pass is one run
  for (const auto& r : res.regions) native_calls += r.calls;
  eo.expected_calls = native_calls / uint64_t(std::max(o.repeat, 1));
  eo.region_name = [&planner](regions::RegionId id) { return planner.regions().at(id).name; };
  eo.keep_calls = [&groups](regions::RegionId id) { return groups.grouped(id); };  // per-call W and Q of a group
  eo.annotate = o.annotate;
  // Without --cache: the host's hierarchy, resized to the measured one where that differs.
  HostGeometry host{{}, o.cache_levels.empty() ? "reported" : "option", "", false};
  auto emulate = [&]() {
    if (!o.quiet)
      std::fprintf(stderr, "roofprof: emulated run for exact flops and bytes (%s)\n",
                   plan.native_pass ? "the program runs again" : "the only run of this rank");
    // The emulated run marks regions the way the native run did: with --no-ptrace the agent's
    // hooks (client requests to the tool), otherwise entry probes where breakpoints were.
    std::vector<probes::PlannedProbe> probes;
    if (plan.emulated_marks_by_agent) eo.agent = emulation_agent(planner);
    else {
      probes = emulation_probes(planner);
      for (auto& w : emulation_left_out(planner)) res.warnings.push_back(std::move(w));
    }
    if (o.cache_sim && o.cache_levels.empty()) host = host_geometry(o.ceilings, emul::host_cache_geometry());
    eo.cache = o.cache_levels.empty() ? host.levels : o.cache_levels;
    eo.cache_is_host = o.cache_levels.empty();
    if (host.source == "measured" && !o.quiet)
      std::fprintf(stderr, "roofprof: simulating the measured caches %s (from %s) instead of the reported %s\n",
                   emul::to_string(host.levels).c_str(), host.measured_in.c_str(),
                   emul::to_string(emul::host_cache_geometry()).c_str());
    return emul::run(o.command, probes, eo);
  };
  PassPolicy policy;
  if (!plan.native_pass) policy.untimed_calls_source = "agent (emulated run)";
  policy.ending_from_emulation = !plan.native_pass;
  policy.compare_native_ending = plan.native_pass;
  policy.traffic_only = plan.emulated_traffic_only;
  policy.cache_sim = o.cache_sim;
  PassOutcome pass = emulated_pass(policy, planner, emulate, res);
  if (!plan.native_pass && pass.error.empty())
    res.warnings.push_back("a rank of an MPI job runs once, under valgrind: flops and bytes are exact, time was not "
                           "measured (null); run the job again with --backend time for T");
  if (!pass.emulated) return pass;
  const emul::Result& emulated = *pass.emulated;
  if (emulated.execed_unmeasured)
    res.warnings.push_back(
        "the program replaced itself (execve): without --follow-fork the emulated run measured the code before "
        "the exec only, while the native run's times include the program it exec'd: W and Q describe less code "
        "than T in the regions open across the exec and the whole run (--follow-fork measures both)");
  record_simulated_caches(emulated, host.source, host.last_level_measured, res);
  if (o.annotate) attach_annotation(res.regions, emulated.annotation);
  groups.add_emulated(emulated);
  return pass;
}

// What native counting patched, for the result, and a warning where floating-point code of the
// program's modules could not be counted (its flops are missing from W wherever it ran).
void note_native_counting(const std::vector<native::PatchedModule>& modules, result::Run& res) {
  result::NativeCounting nc;
  uint64_t fp = 0, uncounted = 0, unwatched = 0;
  std::vector<std::string> failed, ran_where;
  for (const auto& m : modules) {
    if (m.fp_insns == 0 && m.failure.empty()) continue;
    result::NativeModule out{m.path, m.sites, m.fp_insns, m.uncounted_fp_insns, {}, 0, m.failure};
    std::vector<result::NativeUncounted> places;
    for (size_t k = 0; k < m.uncounted.size(); ++k) {
      const auto& u = m.uncounted[k];
      const int8_t ran = k < m.ran.size() ? m.ran[k] : -1;
      places.push_back({u.start, u.function, u.why, u.fp_insns, ran < 0 ? std::nullopt : std::optional<bool>(ran == 1)});
      if (ran == 1) {
        out.uncounted_ran++;
        ran_where.push_back(fmt::format("{} in {} ({})", u.function, path_basename(m.path), u.why));
      }
      if (ran < 0 && m.failure.empty()) unwatched++;
    }
    // Those that ran first: they are the ones that matter.
    std::stable_sort(places.begin(), places.end(), [](const auto& a, const auto& b) {
      return a.ran.value_or(false) > b.ran.value_or(false);
    });
    if (places.size() > result::kMaxNativeUncounted) places.resize(result::kMaxNativeUncounted);
    out.uncounted = std::move(places);
    fp += m.fp_insns;
    uncounted += m.uncounted_fp_insns;
    if (!m.failure.empty()) failed.push_back(fmt::format("{} ({})", m.path, m.failure));
    nc.modules.push_back(std::move(out));
  }
  res.native_counting = std::move(nc);
  for (const auto& f : failed)
    res.warnings.push_back("native counting: no flops of " + f + " are counted");
  if (!ran_where.empty())
    res.warnings.push_back(fmt::format(
        "native counting: code it could not patch ran, so W is a lower bound in the regions open while it did: {}{} "
        "(native_counting lists the places it could not patch: {} of the program's {} floating-point instructions)",
        fmt::join(ran_where.begin(), ran_where.begin() + std::min<ptrdiff_t>(ptrdiff_t(ran_where.size()), 3), "; "),
        ran_where.size() > 3 ? fmt::format(" and {} more", ran_where.size() - 3) : "", uncounted, fp));
  if (unwatched > 0)
    res.warnings.push_back(fmt::format(
        "native counting: {} places it could not patch could not be watched either (native_counting, \"ran\": null): "
        "W is a lower bound in the regions open while they ran, if they did",
        unwatched));
}

// Native counting's emulated pass (the bytes below L1) is skipped when it cannot describe the
// code that ran (AVX-512, which the emulator cannot run) or would take longer than --emul-budget.
std::optional<std::string> skip_traffic_pass(const RunOptions& o, const result::Run& res) {
  double wide = 0;
  for (const auto& r : res.regions)
    for (const char* c : {"sp_512", "dp_512"})
      if (auto it = r.flops_by_class.find(c); it != r.flops_by_class.end()) wide += it->second;
  if (wide > 0)
    return fmt::format("AVX-512 code ran ({:.6g} flops), which the emulator cannot run", wide);
  const double estimate = res.wall_time_s.value_or(0) / double(std::max(o.repeat, 1)) * kEmulationSlowdown;
  if (!o.emul_budget_s)
    return fmt::format("the emulated pass for them runs only when asked for: it would take about {} s ({:.0f} x "
                       "the native run); --emul-budget {:.0f} runs it",
                       estimate < 10 ? fmt::format("{:.1f}", estimate) : fmt::format("{:.0f}", estimate),
                       kEmulationSlowdown, std::max(1.0, std::ceil(estimate * 1.5)));
  if (*o.emul_budget_s == 0) return std::string("--emul-budget 0");
  if (estimate > *o.emul_budget_s)
    return fmt::format("an emulated run would take about {:.0f} s ({:.0f} x the native run), more than --emul-budget "
                       "{:.0f} s",
                       estimate, kEmulationSlowdown, *o.emul_budget_s);
  return std::nullopt;
}

result::Run result_header(const RunOptions& o, const Measuring& m, const std::optional<LaunchInfo>& launch) {
  result::Run res;
  res.tool_version = ROOFPROF_VERSION;
  res.command = o.pid ? cmdline_of(o.pid) : o.command;
  if (o.pid) res.pid = o.pid;
  res.backend = counters::to_string(m.plan.counting.kind);
  res.scope = runplan::to_string(o.scope);
  res.repeat = o.repeat;
  res.cache_state = runplan::to_string(o.cache_state);
  res.host = result::describe_host();
  if (launch) res.job = result::Job{launch->launcher, launch->rank, launch->size, launch->job_id};
  // native counting's classes are W's terms (flops_by_class), not counters of the regions
  const auto& events = m.counting.backend->events();
  for (size_t e = 0; e < events.size(); ++e)
    if (!counters::is_native_class(events, e)) res.events.push_back(events[e].name);
  res.warnings = m.plan.warnings;
  for (const auto& n : m.counting.notes) res.warnings.push_back(n);
  return res;
}

// The backend and why, said once the regions resolved (so that bad input gets exactly one line).
std::vector<std::string> backend_announcement(const RunOptions& o, const Measuring& m) {
  if (o.quiet) return {};
  const counters::BackendChoice& choice = m.plan.counting;
  std::vector<std::string> lines{"backend " + counters::to_string(choice.kind) + ": " + choice.reason};
  for (const auto& w : choice.warnings) lines.push_back("note: " + w);
  for (const auto& n : m.counting.notes) lines.push_back("note: " + n);
  return lines;
}

supervisor::RunOptions session_options(const RunOptions& o, const Measuring& m, Observer& observer) {
  supervisor::RunOptions so;
  so.observer = &observer;
  so.argv = o.command;
  so.attach_pid = o.pid;
  so.follow_fork = o.follow_fork;
  so.max_probe_slowdown = o.max_probe_slowdown;
  so.scope = o.scope;
  so.agent_user_level = m.counting.user_level;
  so.native_counting = m.plan.native_counting;
  // Counters only where they are cheap, unless the user asked for events (docs/preload.md).
  // Native counting's counts are plain loads: read on every call.
  if (o.events.empty() && !m.plan.native_counting) so.agent_cheap_factor = kCheapCountersFactor;
  return so;
}

void print_summary_line(const RunOptions& o, const result::Run& res, const std::string& output) {
  if (o.quiet) return;
  try {
    report::print_summary(res, stderr);
  } catch (const std::system_error&) {
    // stderr is gone (a closed pipe, a hung-up terminal): the summary is lost, the result is not.
  }
  std::fprintf(stderr, "roofprof: results in %s\n", output.c_str());
}

// An MPI rank under --backend emul: the emulated run alone (runplan: native_pass false).
int run_emulated_only(const RunOptions& o, const Measuring& m, probes::Planner& planner, CallGroups& groups,
                      const supervisor::RunOptions& so, result::Run& res, const std::string& output,
                      const OutputTarget& output_target) {
  so.observer->ready();  // the backend and why
  const PassOutcome pass = run_emulated(o, m.plan, planner, groups, res);
  const std::string& error = pass.error;
  const bool interrupted = pass.interrupted;
  // No native run resolved the names (planner_notes would call every region "never found"):
  // the executable's own functions are found here, and said to be unmeasured.
  std::vector<std::string> unseen;
  if (error.empty() && !interrupted) {
    std::error_code ec;
    const auto exe = std::filesystem::canonical(runnable_program(o.command.at(0)), ec);
    if (!ec) unseen = mark_unseen_functions(exe.string(), planner, res);
  }
  for (const auto& r : res.regions)
    if (r.calls == 0 && error.empty() && !interrupted &&
        std::find(unseen.begin(), unseen.end(), r.name) == unseen.end())
      res.warnings.push_back(fmt::format("region '{}': no call seen in the emulated run; a rank's regions are marked "
                                         "by the in-process agent, which sees calls through the dynamic linker only "
                                         "(functions of shared libraries)", r.name));
  result::write_atomic(res, output_target);
  print_summary_line(o, res, output);
  if (!error.empty()) throw UserError(error);
  const supervisor::Ending ending{res.exit_status, res.term_signal, 0};
  return ending.cut_short_by(interrupted ? supervisor::last_request_signal() : 0).exit_code();
}

int run(const RunOptions& o) {
  // From here on a signal to roofprof ends the run, never roofprof: what was measured is
  // written and the temporary files are removed (supervisor/signals.hpp).
  supervisor::install_signal_policy();
  std::vector<regions::RegionSpec> specs;
  for (const auto& r : o.regions) specs.push_back(regions::parse_region(r));
  for (const auto& s : o.spans) specs.push_back(regions::parse_span(s));
  std::set<std::string> from_survey;  // region names a survey chose and the user did not give
  if (!o.regions_from.empty())
    for (const auto& name : survey::regions_from(result::read_file(o.regions_from), o.regions_from)) {
      specs.push_back(regions::parse_region(name));
      if (std::find(o.regions.begin(), o.regions.end(), name) == o.regions.end()) from_survey.insert(name);
    }
  specs = distinct_regions(std::move(specs));
  if (specs.empty())
    throw UserError("no region given: add --region FUNCTION, --span NAME=START..STOP or --regions-from SURVEY "
                    "(see roofprof run --help)");
  if (o.command.empty() && o.pid == 0) throw UserError("no program given: add -- PROGRAM [ARGS...] or --pid PID");
  if (!o.command.empty() && o.pid != 0) throw UserError("give either a program or --pid, not both");
  // Under mpirun / srun: which rank of which job this is, and -o's placeholders (docs/mpi.md).
  const auto launch = detect_launcher(process_environment());
  const std::string name = expand_output_name(o.output, {launch, result::describe_host().hostname, ::getpid()});
  // Before the program starts: a result that cannot be written is found now, not after the run.
  const OutputTarget output_target =
      o.output_given ? check_output(name, "result file") : claim_output(name, "result file");
  const std::string& output = output_target.path;
  if (output != name && !o.quiet)
    std::fprintf(stderr, "roofprof: %s is being written by another roofprof run: results in %s\n", name.c_str(),
                 output.c_str());

  Measuring m = plan_run(o, launch);
  log::line(log::Category::Tracer, "run planned");
  counters::Backend& backend = *m.counting.backend;
  probes::Planner planner(specs);
  regions::Aggregator agg;
  CallGroups groups(planner, caller_depth(o.group_by));
  runplan::check_asks(request_of(o), m.plan, asks_of(o, groups));
  Observer observer(groups, backend_announcement(o, m));
  supervisor::RunOptions so = session_options(o, m, observer);
  for (size_t id = 0; id < planner.regions().size(); ++id)
    if (from_survey.count(planner.regions()[id].spec)) so.agent_skip_if_frequent.insert(regions::RegionId(id));
  so.agent_skip_factor = kSurveySkipFactor;
  // --cache-state cold outside emulation: the tracer evicts from this process at each
  // outermost region entry; the in-process agent evicts in the program (agent_settings passes
  // the size in its environment). The emulated run empties its simulated caches instead.
  std::unique_ptr<CacheEvictor> evictor;
  if (m.plan.eviction != runplan::Eviction::None) {
    size_t bytes = 2 * emul::host_cache_geometry().back().size;  // UserError when sysfs has no caches
    if (m.plan.eviction == runplan::Eviction::Agent) {
      so.agent_evict_bytes = bytes;
    } else {
      evictor = std::make_unique<CacheEvictor>(bytes);
      observer.evict_with(evictor.get());
    }
  }

  result::Run res = result_header(o, m, launch);
  auto sink = [&](regions::Instance&& inst) {
    agg.add(inst);
    groups.add(inst);
  };
  if (!m.plan.native_pass) return run_emulated_only(o, m, planner, groups, so, res, output, output_target);
  log::line(log::Category::Tracer, "program starts");
  NativeRuns native = run_native(o, m.plan, backend, planner, groups, so, sink, res, agg);
  log::line(log::Category::Tracer, "program measured");
  const supervisor::RunOutcome& last = native.last;
  if (evictor) res.cache_evictions = evictor->evictions();
  res.exit_status = last.ending.exit_status;
  res.term_signal = last.ending.term_signal;
  res.complete = last.complete;
  res.regions = assemble_regions(planner, agg, backend.events(), backend.name(), m.counting.event_set, &m.counting.w);
  record_instances(res, agg, hardware_instance_quantities(backend.events(), m.counting.event_set));
  for (auto& w : planner_notes(planner)) res.warnings.push_back(std::move(w));
  note_mechanisms(m.plan, native, res.regions);
  note_agent_overhead(last.agent_boundary, res);
  res.agent_reader = last.agent_reader;
  if (o.pid) note_attached_probe_cost(res);
  PassOutcome pass;  // none run: no error, not interrupted
  if (m.plan.native_counting) note_native_counting(last.native, res);
  std::optional<std::string> skipped = m.plan.emulated_traffic_only ? skip_traffic_pass(o, res) : std::nullopt;
  if (skipped) {
    res.warnings.push_back("bytes (Q) below L1 were not measured: " + *skipped +
                           "; --backend emul runs the emulated pass anyway (W then by emulation too)");
    if (!o.quiet) std::fprintf(stderr, "roofprof: note: %s\n", res.warnings.back().c_str());
  } else if (m.plan.emulated_pass && last.complete) {
    pass = run_emulated(o, m.plan, planner, groups, res);
  }
  groups.set_native_classes(counters::native_events_at(backend.events()));
  groups.fill(res.regions, res.events);
  result::write_atomic(res, output_target);
  log::line(log::Category::Tracer, "result written");
  print_summary_line(o, res, output);
  if (!pass.error.empty()) throw UserError(pass.error + " (time and counters of the native run are in " + output + ")");
  if (pass.interrupted) return last.ending.cut_short_by(supervisor::last_request_signal()).exit_code();
  if (last.ending.term_signal) {
    std::fprintf(stderr, "roofprof: program killed by %s\n", supervisor::signal_name(*last.ending.term_signal).c_str());
    return last.ending.exit_code();
  }
  // A name never found is the same error, exit status 2, whether it was known before the program
  // ran (no dlopen: refused then) or only once it ended (docs/methodology.md, "Unknown names").
  if (last.complete && !supervisor::interrupted())
    if (auto error = never_found_error(planner, output)) throw UserError(*error);
  return last.ending.exit_code();
}

}  // namespace

Runner setup_run(CLI::App& sub, const std::vector<std::string>& program) {
  auto o = std::make_shared<RunOptions>();
  sub.add_option("--region,-r", o->regions, "function region: a name as gdb takes it (ns::f, 'f(float*, int)', Cls::operator(), main::lambda@FILE:LINE), a mangled name, or a glob matching at any scope ('NPair*::build')")
      ->take_all();
  sub.add_option("--regions-from", o->regions_from,
                 "the functions of a survey result (roofprof survey -o FILE) as regions (docs/survey.md)");
  sub.add_option("--span", o->spans, "span region NAME=START..STOP (symbols, FILE:LINE or addresses)");
  auto* output = sub.add_option("-o,--output", o->output,
                 "result file (an existing one is kept as FILE.old; default roofprof.json, or roofprof.N.json while "
                 "another run writes that); %r rank, %s job size, %h host, %p pid, "
                 "%j job id; under mpirun/srun the rank is added when %r is absent (docs/mpi.md)");
  auto* pid = sub.add_option("--pid,-p", o->pid, "attach to a running process instead of launching one");
  sub.add_flag("--follow-fork", o->follow_fork, "measure child processes too");
  // --scope, --cache-state and --backend: the word checked against runplan's names, then its value taken
  sub.add_option_function<std::string>(
         "--scope", [o](const std::string& word) { o->scope = *runplan::scope_named(word); },
         "counts of the whole process or of the entering thread only")
      ->check(CLI::IsMember(runplan::scope_names()));
  sub.add_option("--repeat", o->repeat, "run the program N times and aggregate")->check(at_least(1));
  sub.add_option("--max-probe-slowdown", o->max_probe_slowdown,
                 "stop probing the costliest regions when breakpoints would make the run more than N times "
                 "slower (default 10; 0: never; docs/methodology.md)")
      ->check(at_least(0));
  sub.add_option_function<std::string>(
         "--backend", [o](const std::string& word) { o->backend = *runplan::backend_named(word); },
         "how to count: auto, perf (hardware counters), native (flops counted by patched code), emul "
         "(emulation under valgrind) or time (docs/native.md)")
      ->check(CLI::IsMember(runplan::backend_names()));
  sub.add_option("--emul-budget", o->emul_budget_s,
                 "native counting: run the emulated pass for the bytes below L1 when it should take less than this "
                 "many seconds (estimated at 40 times the native run; not run unless given; 0: never)")
      ->check(at_least(0));
  sub.add_option("--event-dir", o->event_dir,
                 "directory of event-set files adding or overriding hardware event sets (besides "
                 "$XDG_CONFIG_HOME/roofprof/events or ~/.config/roofprof/events; docs/counters.md)");
  sub.add_option("--events,-e", o->events, "software events to count (default: task-clock,page-faults,context-switches; none: the clock only)")
      ->delimiter(',');
  sub.add_flag("!--no-cache-sim", o->cache_sim, "emulation backend: no cache simulation (L1 traffic only)");
  sub.add_option("--cache-last-level", o->cache_last_level,
                 "emulation backend: the simulated last cache level is inclusive, or non-inclusive (holds what the "
                 "level above evicts, as on AMD Zen and Intel Xeon since Skylake); host: as CPUID says of the host's "
                 "(docs/emulation.md)")
      ->check(CLI::IsMember({"host", "inclusive", "non-inclusive"}));
  add_cache_geometry_option(sub, o->cache_geometry,
                            "; its last level is inclusive unless --cache-last-level non-inclusive; --cache-state "
                            "cold still evicts the host's caches in the native run");
  sub.add_option("--ceilings", o->ceilings,
                 "emulation backend: the measured cache hierarchy from this file (roofprof ceilings -o) instead of "
                 "this machine's cached ceilings; a last level it measured at under half the reported size is simulated "
                 "at the measured size (docs/emulation.md)")
      ->type_name("FILE");
  sub.add_option_function<std::string>(
         "--cache-state", [o](const std::string& word) { o->cache_state = *runplan::cache_state_named(word); },
         "warm: the program as it runs; cold: caches evicted before each outermost region call "
         "(docs/methodology.md)")
      ->check(CLI::IsMember(runplan::cache_state_names()));
  sub.add_flag("--quiet,-q", o->quiet, "no summary on stderr");
  sub.add_option("--group-by", o->group_by,
                 "split each function region's calls: args (built-in signatures: by problem size; the default) "
                 "or caller[:DEPTH] (by the DEPTH innermost call sites, default 1; breakpoints at the entries)");
  sub.add_flag("--annotate", o->annotate,
               "emulated run: count each instruction of the function regions, for roofprof annotate");
  sub.add_flag("--no-ptrace", o->no_ptrace,
               "measure with the in-process agent alone (LD_PRELOAD, no ptrace): only functions called "
               "through the dynamic linker (docs/preload.md)");
  auto* preload = sub.add_flag("--preload,!--no-preload", o->preload,
                               "combined mode (default): the in-process agent (LD_PRELOAD) measures the functions "
                               "whose entries roofprof patches and those every call of which goes through the "
                               "dynamic linker, breakpoints the rest; --no-preload: breakpoints only "
                               "(docs/preload.md)");
  sub.add_flag("!--no-patch", o->patch,
               "combined mode without entry patches: the agent measures only functions every call of which "
               "goes through the dynamic linker, breakpoints the rest (docs/preload.md, \"Entry patches\")");
  sub.footer(kProgramFooter);
  return [o, preload, pid, output, &program] {
    o->output_given = output->count() > 0;
    if (pid->count() > 0 && o->pid <= 0)
      throw UserError(fmt::format("--pid {}: not a process id; give the id of a running process (ps, pgrep)", o->pid));
    o->preload_given = preload->count() > 0;
    o->command = program;
    const CacheSpec given = cache_option(o->cache_geometry);
    o->cache_levels = given.levels;
    o->last_inclusive = last_level_inclusion(given, o->cache_last_level);
    if (!o->cache_levels.empty() && !o->cache_sim)
      throw UserError("--cache describes the simulated caches, which --no-cache-sim turns off: give one");
    if (!o->ceilings.empty()) {
      if (!o->cache_levels.empty())
        throw UserError("--ceilings and --cache both give the simulated caches: give one");
      if (!o->cache_sim)
        throw UserError("--ceilings gives the simulated caches, which --no-cache-sim turns off: give one");
      ceilings::load(o->ceilings);  // UserError when it is not a ceilings file
    }
    return run(*o);
  };
}

}  // namespace roofprof::cli
