#pragma once
// The emulation backend: runs a program under valgrind with roofprof's tool and returns
// exact per-instance counts (instructions, flops by class, L1 bytes; with cache simulation
// the traffic at L2, L3 and DRAM). See docs/emulation.md.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "emul/cache_geometry.hpp"
#include "emul/events.hpp"
#include "emul/probes.hpp"
#include "regions/aggregate.hpp"
#include "emul/annotation.hpp"
#include "regions/tracker.hpp"

namespace roofprof::emul {

struct Options {
  regions::Scope scope = regions::Scope::Process;
  bool cache_sim = false;
  // The cold scenario (run --cache-state cold): the simulated caches are emptied at the entry
  // of every function region that no other probed function of the thread encloses. Needs
  // cache_sim. The flush adds no traffic (write-backs are charged at dirtying).
  bool cold_at_entry = false;
  // The simulator's fast path (an access to the MRU line of its L1 set) is tested by inline code
  // before each call; false calls the simulator on every access. Counts are the same either way
  // (a test compares them).
  bool cache_inline = true;
  // Counts per instruction (Result::annotation), for roofprof annotate.
  bool annotate = false;
  // The simulated hierarchy, L1 first (run --cache-geometry); empty: the host's geometry
  // (host_cache_geometry(), emul/cache_geometry.hpp).
  std::vector<CacheInfo> cache;
  // `cache` is the host's hierarchy resized to a measured one (run/measured_geometry.hpp): its last
  // level's inclusion as the host's, as for the host's own levels.
  bool cache_is_host = false;
  // The last level inclusive (true) or non-inclusive (false); null: as the host's, when `cache` is
  // the host's (simulated_hierarchy, emul/cache_geometry.hpp).
  std::optional<bool> last_level_inclusive;
  // Measure child processes too: exec'd images (valgrind --trace-children) and forked
  // children (which valgrind always runs; without this their events are left out, as the
  // native run leaves them out without --follow-fork).
  bool follow_exec = false;
  // Progress on stderr (emul/progress.hpp): a line redrawn with a bar and ETA on a terminal,
  // plain lines every 10 s otherwise, or nothing (-q).
  enum class ProgressOutput { None, Terminal, Lines };
  ProgressOutput progress = ProgressOutput::None;
  // The region calls the native run made (per run): the emulated run's percentage and ETA.
  std::optional<uint64_t> expected_calls;
  std::function<std::string(regions::RegionId)> region_name;  // for the progress line
  // The valgrind launcher; "": the engine the tool was built against, which is the only one it
  // runs under: the copy an install carries next to the tool, else the build's
  // (cmake/valgrind.cmake, common/layout.hpp). Tests name another to check the errors.
  std::string valgrind;
  // Function regions marked by the in-process agent instead of the tool's entry probes: the
  // emulated twin of `roofprof run --no-ptrace` (same hooks, same shadow stack). The agent is
  // preloaded with ROOFPROF_AGENT_EMUL=1 and reports its boundaries as client requests.
  // The agent is libroofprof-preload.so next to the tool (tool_dir).
  struct Agent {
    std::string regions;      // ROOFPROF_AGENT_REGIONS ("SPEC:PATTERN" lines)
    AgentRegions region_ids;  // (spec, raw symbol) -> the planner's regions
  };
  std::optional<Agent> agent;
  // The regions whose calls are kept one by one in Result::instances (per-call W and Q of
  // argument groups); unset: every region's. Every call is in Result::aggregate either way, so
  // that 10^7 calls of a region no one asks about call by call take no memory per call.
  std::function<bool(regions::RegionId)> keep_calls;
  // Sees every call as it closes (unset: nothing), before Result::aggregate takes it.
  std::function<void(const regions::Instance&)> on_instance;
  // Directory holding roofprof-amd64-linux; "" = <dir of the running executable>/../lib/roofprof,
  // else (only when that directory does not exist: unit tests) the build tree's.
  std::string tool_dir;
};

struct Result {
  std::vector<std::string> counters;          // names, in Instance::counts order
  regions::Aggregator aggregate;              // every call of every region
  std::vector<regions::Instance> instances;   // the calls Options::keep_calls keeps, in closing order
  std::map<int, std::vector<double>> totals;  // per pid: whole-process counts at its exit
  int pid = 0;                                // the program's pid
  int exit_code = -1;                         // when it exited
  int signal = 0;                             // when it died of a signal
  // A signal to roofprof ended the emulated run early (supervisor/signals.hpp): the counts
  // cover part of the program only.
  bool interrupted = false;
  // valgrind's first error line in its logs ("valgrind: ..."; "" when none), when the program
  // exited with a status other than 0 or died of a signal: its own limits (threads) say why.
  std::string log_error;
  // Without follow_exec: the program replaced itself (execve) and the new image ran outside
  // the emulator, unmeasured.
  bool execed_unmeasured = false;
  std::vector<InstructionCounts> annotation;  // with Options::annotate: every instruction executed
  // The hierarchy simulated (simulated_hierarchy), L1 first; empty without cache simulation.
  std::vector<CacheInfo> simulated_caches;
};

// Runs argv (argv[0] found on PATH like a shell would) under valgrind with the exact-count
// VEX settings. Throws UserError (exit 2) when valgrind or the tool is missing, the program
// cannot be started, or it dies of SIGILL on an instruction valgrind cannot emulate (AVX-512).
Result run(const std::vector<std::string>& argv, const std::vector<probes::PlannedProbe>& probes, const Options& options);

// The valgrind options roofprof adds for exact counts (also used by the benchmark).
std::vector<std::string> exact_vex_options();

// Directory of the tool per Options::tool_dir's rule; throws UserError when absent.
std::string find_tool_dir(const std::string& configured = "");

}  // namespace roofprof::emul
