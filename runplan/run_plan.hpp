#pragma once
// How `roofprof run` measures: a pure function from what was asked, what this machine can
// count, facts about the program and the MPI launcher to a plan. cli/cmds/run.cpp executes
// the plan; every decision about the mode is here, and each row of the table is a unit test
// (tests/unit/runplan).
//
//   native mechanism   --no-ptrace                       -> agent (the in-process agent alone)
//                      launched, warm,
//                      --preload (default), the agent
//                      counts the events, dynamic program -> combined (agent + breakpoints)
//                      otherwise                         -> breakpoints
//   counting           counters::choose_backend; emul under --pid or an MPI launcher -> time,
//                      except --backend emul under a launcher: the emulated run only, no T;
//                      native under --pid or --no-ptrace -> what auto picks without it
//   native counting    the backend is native: the tracer patches each module as it loads; an
//                      emulated pass measures the bytes below L1 where valgrind is (not under a
//                      launcher)
//   emulated pass      the backend is emul: the program runs again under valgrind, its
//                      regions marked like the native run's (agent hooks or entry probes)
//   eviction           --cache-state cold: by the tracer at each outermost entry, by the agent
//                      (--no-ptrace), and by the tool in the emulated pass
#include <optional>
#include <string>
#include <vector>

#include "common/launcher.hpp"
#include "counters/backend_choice.hpp"
#include "runplan/option_values.hpp"

namespace roofprof::runplan {

// What the user asked (the options of `run` that decide the mode).
struct Request {
  counters::BackendRequest backend = counters::BackendRequest::automatic;  // --backend
  bool launch = true;            // a program to start (false: --pid)
  int repeat = 1;
  bool no_ptrace = false;
  bool preload = true;           // --preload (default) / --no-preload
  bool preload_given = false;    // either was on the command line
  CacheState cache_state = CacheState::Warm;  // --cache-state
};

// Facts about the program to start (ignored with --pid).
struct Program {
  bool statically_linked = false;  // an ELF without PT_INTERP (a script is not)
  // Why native counting cannot count it, if it cannot: its threads' control blocks are not
  // glibc's (preload/native_format.h), e.g. "its dynamic linker is /lib/ld-musl-x86_64.so.1".
  std::string not_glibc;
};

enum class Mechanism { Breakpoints, Agent, Combined };
const char* to_string(Mechanism m);

// Who empties the caches before each outermost region call (--cache-state cold).
enum class Eviction { None, Tracer, Agent };

struct Plan {
  Mechanism native = Mechanism::Breakpoints;
  counters::BackendChoice counting;  // the result's backend, its reason and notes (announced)
  bool native_pass = true;           // false: an MPI rank under --backend emul runs only emulated
  bool native_counting = false;      // flops counted by patched code (docs/native.md)
  bool emulated_pass = false;        // the program runs a second time under valgrind
  // native counting's emulated pass: the traffic below L1 only (W is native counting's); the
  // run skips it when AVX-512 ran or its estimated time exceeds --emul-budget
  bool emulated_traffic_only = false;
  bool emulated_marks_by_agent = false;  // the emulated pass marks regions with the agent's hooks
  Eviction eviction = Eviction::None;    // native run; the emulated pass flushes in the tool
  std::vector<std::string> warnings;     // for the result file
};

// The counting of the run: `choice` (counters::choose_backend(request.backend, caps)), except
// that emulation, which starts the program again, cannot for an attached process or an MPI
// rank (time instead, or UserError when emul was asked for by name), and that native counting
// cannot attach, run without ptrace or count a program not built on glibc (`without_native`
// instead, or UserError when native was asked for by name).
counters::BackendChoice counting_for(const Request& request, counters::BackendChoice choice, const Program& program,
                                     const std::optional<LaunchInfo>& launch,
                                     const counters::BackendChoice* without_native = nullptr);

// `choice`: counters::choose_backend(request.backend, caps). `agent_counts_events`: the
// in-process agent can count the native run's events (each thread's own perf events, software or
// hardware: run/agent_env.hpp). Throws
// UserError (one line, what to do) for a request that cannot be planned.
// `without_native`: what `auto` counts with where native counting cannot run (--pid,
// --no-ptrace): counters::choose_without_native; null: time.
Plan make_plan(const Request& request, counters::BackendChoice choice, bool agent_counts_events,
               const Program& program, const std::optional<LaunchInfo>& launch,
               const counters::BackendChoice* without_native = nullptr);

// How calls of a function region are split into groups (--group-by).
enum class GroupBy { Args, Caller };

// What the options ask of a plan beyond its request: options only the emulated pass honours,
// and the call paths of --group-by caller[:DEPTH].
struct Asks {
  bool cache_geometry = false;  // --cache
  bool ceilings = false;        // --ceilings
  bool annotate = false;        // --annotate
  GroupBy group_by = GroupBy::Args;
  int caller_depth = 1;         // --group-by caller:DEPTH
  std::string group_by_text;    // --group-by as given, for the messages
};

// UserError (one line: what is wrong, what to do) for an ask `plan` cannot honour.
void check_asks(const Request& request, const Plan& plan, const Asks& asks);

}  // namespace roofprof::runplan
