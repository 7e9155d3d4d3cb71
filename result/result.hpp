#pragma once
// The result file: one run of roofprof (possibly --repeat N runs merged). The JSON schema is
// versioned and documented in docs/result-schema.md. Unknown quantities are null, never 0.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/output_file.hpp"
#include "common/overhead.hpp"
#include "common/run_words.hpp"

namespace roofprof::result {

// What measuring cost (common/overhead.hpp): measured by the probe mechanisms, written here.
using ProbeCost = overhead::ProbeCost;
using AgentBoundary = overhead::AgentBoundary;
using AgentReader = overhead::AgentReader;

inline constexpr int kSchemaVersion = 1;

struct Site {
  std::string module;   // path of the ELF file
  uint64_t offset = 0;  // link-time address in that module
  std::string symbol;   // symbol at the site, "" when none
  std::string role;     // "entry" (function), "start" / "stop" (span), "resume" (inlined copy)
  bool operator==(const Site&) const = default;
};

struct Stats {  // seconds
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
  bool operator==(const Stats&) const = default;
};

struct Bytes {
  std::optional<double> read, write;
  bool operator==(const Bytes&) const = default;
};

// The calls of a region that had the same decoded arguments (signatures/: "m=200,n=200,k=200").
// Optional in schema 1: a region whose calls were not grouped has none.
struct Group {
  std::string key;                       // "m=200,n=200,k=200": params in signature order
  std::map<std::string, double> params;  // "m" -> 200, ...
  uint64_t calls = 0;
  double time_s = 0;                     // total over the group's calls
  std::optional<Stats> time_per_call_s;  // null when calls == 0
  std::map<std::string, std::optional<double>> counters;  // as Region::counters
  std::optional<double> flops;           // W measured; null when no backend measured it
  std::map<std::string, Bytes> bytes;    // as Region::bytes
  // Flops by the signature's standard formula (dgemm 2mnk, ...), summed over the calls; null
  // when the signature has no formula.
  std::optional<double> expected_work;
  // Grouped by call path (run --group-by caller): the call sites, innermost first, "solve
  // (solver.c:120)"; empty for argument groups (written only when not empty).
  std::vector<std::string> call_path;
  bool operator==(const Group&) const = default;
};

// One thread's part of a region (docs/methodology.md, "Threads"). Threads are numbered as the
// runs of one program number them: `process`, the process's rank among the run's processes by
// pid; `thread`, the thread's rank among the region's threads of that process by tid (the order
// they were created in). With scope=process, the work of threads that had no call of the region
// open is the region's `flops_other_threads`, not a thread's.
struct ThreadPart {
  int process = 0, thread = 0;
  uint64_t calls = 0;
  std::optional<double> time_s;  // its calls' time; null where no clock timed them
  std::optional<double> flops;   // its own work in the region; null where not measured
  bool operator==(const ThreadPart&) const = default;
};

// How one quantity spreads over threads (or an MPI job's ranks).
struct Spread {
  double min = 0, median = 0, max = 0, mean = 0;
  // The load imbalance, max / mean (1: even); null when the mean is 0.
  std::optional<double> imbalance() const { return mean > 0 ? std::optional(max / mean) : std::nullopt; }
  bool operator==(const Spread&) const = default;
};
inline constexpr double kImbalanceFlagged = 1.10;  // max / mean above this is flagged

struct Balance {
  uint64_t threads = 0;  // threads that called the region (two or more)
  std::optional<Spread> time_s, flops;  // null when a thread's value is unknown
  bool operator==(const Balance&) const = default;
};


// What compensation subtracted from a region's time (docs/methodology.md, "Compensation"): the
// in-process probes' own time inside its instances, its own boundaries' parts and those of every
// region measured inside it. Optional member of schema 1: present when something was subtracted.
struct Compensation {
  double time_measured_s = 0;  // the instances' time as measured; time_s is this less the two below
  double measured_s = 0;       // the probes' time that their boundaries measured
  double calibrated_s = 0;     // their parts outside those measurements, from the calibration
  bool operator==(const Compensation&) const = default;
  double subtracted_s() const { return measured_s + calibrated_s; }
  Compensation& operator+=(const Compensation& c) {
    time_measured_s += c.time_measured_s, measured_s += c.measured_s, calibrated_s += c.calibrated_s;
    return *this;
  }
};

// One instruction of a function region with its counts from the emulated run (run --annotate;
// roofprof annotate shows them by source line).
struct AnnotatedInstruction {
  std::string module;    // path of the ELF file
  uint64_t address = 0;  // link-time
  uint32_t length = 0;   // bytes
  uint64_t executions = 0;
  // Part of its counts depends on a guard (masked or conditional accesses, REP iterations) and is
  // left out of the numbers below.
  bool partial = false;
  double flops = 0;
  std::map<std::string, double> flops_by_class;  // dp_256, ... as Region::flops_by_class
  double bytes_read = 0, bytes_written = 0;       // L1: what the instruction accessed
  std::map<std::string, Bytes> traffic;           // simulated, below L1: "L2", ..., "DRAM" (cache sim)
  bool operator==(const AnnotatedInstruction&) const = default;
};

// One region instance as it ran on a thread (a call, or a resumed part of one: an inlined copy's
// code entered again), for timelines (roofprof report --trace). Optional member of schema 1:
// only files whose run recorded instances (Run::instances_per_thread) have them.
struct Instance {
  int run = 0;                  // which run of --repeat, from 0
  int process = 0, thread = 0;  // numbered as ThreadPart numbers them, in that run
  int pid = 0, tid = 0;         // the kernel's ids in that run
  // Seconds from the first instance of that run (of any region) to its boundaries, as measured.
  double start_s = 0, end_s = 0;
  // Its duration less the probes' time inside it (as Region::time_s); null where no clock timed it.
  std::optional<double> time_s;
  uint32_t depth = 0;             // region instances open on the thread when it opened
  std::string closed_by;          // as Region::closed_by's keys
  bool resumed = false;           // a resumed part of the thread's previous call, no call of its own
  std::optional<double> flops;    // W of its own thread while it was open; null where not measured
  std::map<std::string, Bytes> bytes;  // its own thread's Q by level; empty where not measured
  // Scope=process, the first instance of the region open in the process: the work of threads
  // with no instance of it open, while it was open; null otherwise or where not measured.
  std::optional<double> flops_other_threads;
  bool operator==(const Instance&) const = default;
};

struct Region {
  std::string name;
  std::string kind;  // "function" | "span"
  std::string spec;  // as the user wrote it
  std::vector<Site> locations;
  uint64_t calls = 0;
  // Why `calls` is only approximate, one line per inlined copy whose code is interleaved with its
  // caller's (probes::RegionInfo::calls_approximate); empty: exact. Optional member of schema 1,
  // written only when not empty.
  std::vector<std::string> calls_approximate;
  // Total over calls; null when no clock timed them (an MPI rank's emulated run: exact W and Q,
  // no native run).
  std::optional<double> time_s = 0.0;
  std::optional<Stats> time_per_call_s;  // null when calls == 0 or time_s is null
  // event name -> total; null when the event was open but never got a counter (see
  // counters::kNotCounted). Events a backend did not open are absent.
  std::map<std::string, std::optional<double>> counters;
  bool counters_multiplexed = false;  // counters are scaled estimates
  uint64_t threads = 0;               // distinct threads that entered
  std::map<std::string, uint64_t>
      closed_by;                // close reason -> instances ("return", "longjmp", ...)
  std::optional<double> flops;  // W; null when no backend measured it
  std::map<std::string, double> flops_by_class;  // dp_scalar, dp_128, dp_256, dp_512, sp_...
  std::map<std::string, Bytes> bytes;            // L1, L2, L3, DRAM
  std::optional<double> instructions;
  // Which backend produced each quantity: "time" -> "clock", "counters" -> "perf", "flops" ->
  // "emul" ... A key "counters.EVENT" overrides "counters" for one event.
  std::map<std::string, std::string> sources;
  // Calls grouped by their decoded arguments; empty when not grouped (written only when not
  // empty; optional member of schema 1).
  std::vector<Group> groups;
  std::optional<ProbeCost> probe_cost;  // written only when present
  std::optional<Compensation> compensation;  // written only when present
  // Threads (optional members of schema 1): each thread's part, written when two or more threads
  // called the region; the work of threads without a call of it while it was open (scope=process;
  // null: none measured); the spread over the threads.
  std::vector<ThreadPart> per_thread;
  std::optional<double> flops_other_threads;
  std::optional<Balance> balance;
  // run --annotate: the region's functions instruction by instruction (written only when not empty).
  std::vector<AnnotatedInstruction> annotation;
  // Its first Run::instances_per_thread instances on each thread of each run, in order of start
  // on each thread; the instances left out of that (written only when the run recorded instances).
  std::vector<Instance> instances;
  uint64_t instances_left_out = 0;
  bool operator==(const Region&) const = default;
};

struct Host {
  std::string hostname, kernel, cpu_model, cpu_vendor;
  std::optional<int> logical_cpus;  // online CPUs; null when unknown
  std::string pmu;                  // detected PMU model, "" when none
  bool operator==(const Host&) const = default;
};

// The job a rank of a parallel launch (mpirun, srun) belongs to, from the launcher's
// environment (common/launcher.hpp). Optional member of schema 1: absent outside a launcher.
struct Job {
  std::string launcher;           // "openmpi", "pmix", "pmi", "slurm"
  int rank = 0;
  std::optional<int> size;        // ranks in the job; null when the launcher does not say
  std::optional<std::string> id;  // job id; null when the launcher does not say
  bool operator==(const Job&) const = default;
};



// What native counting patched (docs/native.md): per module, its counting sites and the static
// floating-point instructions it could not count. Optional member: runs with --backend native.
struct NativeUncounted {
  uint64_t address = 0;  // where the site starts (runtime address in the run)
  std::string function;
  std::string why;
  uint64_t fp_insns = 0;
  std::optional<bool> ran;  // it ran (its flops are missing from W); null: not watched
  bool operator==(const NativeUncounted&) const = default;
};
struct NativeModule {
  std::string path;
  uint64_t sites = 0;
  uint64_t fp_insns = 0;            // static instructions with flops in its functions
  uint64_t uncounted_fp_insns = 0;  // of them, in code that could not be patched
  std::vector<NativeUncounted> uncounted;  // those that ran first, then the others, kMaxNativeUncounted at most
  uint64_t uncounted_ran = 0;       // places that could not be patched and ran
  std::string failure;              // why nothing of it counts; "" when it does
  bool operator==(const NativeModule&) const = default;
};
inline constexpr size_t kMaxNativeUncounted = 20;
struct NativeCounting {
  std::vector<NativeModule> modules;  // those with floating-point code
  bool operator==(const NativeCounting&) const = default;
};

// One level of the cache hierarchy an emulated run simulated (docs/emulation.md, "Cache
// simulation"). Optional member of schema 1: present when the run simulated caches.
struct SimulatedCache {
  std::string name;                // "L1", "L2", ...
  uint64_t size = 0;               // bytes
  uint64_t ways = 0;
  uint64_t line = 0;               // bytes
  // Inclusive of the levels above it (true), or non-inclusive, holding the victims of the level
  // above (false); null for L1.
  std::optional<bool> inclusive;
  bool operator==(const SimulatedCache&) const = default;
};

// A function the survey's samples fell in (roofprof survey, docs/survey.md).
struct SurveyFunction {
  std::string name;                   // demangled; "[kernel]", "[unknown in MODULE]" without a symbol
  std::string symbol;                 // as stored in the module; "" without a symbol
  std::string module;                 // path; "" for the kernel
  std::optional<uint64_t> address;    // link-time address of the entry; null without a symbol
  std::optional<std::string> source;  // "file:line" of the entry; null without DWARF
  uint64_t self_samples = 0;          // samples whose instruction was in it
  uint64_t total_samples = 0;         // samples with it in the call chain (frame pointers) or as the instruction
  // How a region of it is measured: "patch", "breakpoint", "agent", "inlined" (its inlined copies,
  // by breakpoints at their edges: no out-of-line code was sampled), "none".
  std::string probe;
  std::optional<uint64_t> region;     // index in Run::regions of its exact W and Q (--backend emul)
  // --backend emul: W, instructions and Q of its own code, outside the surveyed functions it
  // called (regions/self_counts.hpp); null otherwise.
  std::optional<double> self_flops, self_instructions;
  std::map<std::string, Bytes> self_bytes;  // L1, L2, L3, DRAM; empty when not emulated
  // A CPU-dispatch variant of this sampled function (survey/variants.hpp), listed because the
  // emulated run reached it; null for the functions sampled or seen in call chains.
  std::optional<std::string> variant_of;
  bool operator==(const SurveyFunction&) const = default;
};

// Where a sampled run spent its time. Optional member of schema 1: only survey results have it.
struct Survey {
  std::string event;                      // "cpu-clock"
  double period_s = 0;                    // CPU time each sample stands for
  uint64_t samples = 0;                   // samples taken (lost ones excluded)
  uint64_t lost = 0;                      // samples the kernel dropped
  std::vector<SurveyFunction> functions;  // most self samples first
  bool operator==(const Survey&) const = default;
};

struct Run {
  int schema = kSchemaVersion;
  std::string tool_version;
  std::vector<std::string> command;
  std::optional<int> pid;          // attached process (--pid)
  std::optional<int> exit_status;  // program's exit code
  std::optional<int> term_signal;  // signal that killed the program
  bool complete = true;            // false when roofprof was interrupted or detached early
  std::string backend;             // "perf", "native", "emul", "time" (common/run_words.hpp)
  std::string scope;               // "process" | "thread"
  int repeat = 1;
  // "warm": the program as it runs; "cold": caches evicted before each outermost region call
  // (run --cache-state, docs/methodology.md). Files without the member were warm.
  std::string cache_state = run_words::kWarm;
  // Evictions the native run made (tracer or agent); null when warm or not counted.
  std::optional<uint64_t> cache_evictions;
  // The program's whole run (sum over repeats); null: not timed (an emulated MPI rank).
  std::optional<double> wall_time_s = 0.0;
  Host host;
  std::optional<Job> job;  // a rank of an MPI job; its host is host.hostname
  std::optional<AgentBoundary> agent_boundary;  // written only when present
  std::optional<AgentReader> agent_reader;      // written only when present (the agent ran)
  std::optional<NativeCounting> native_counting;  // written only when present (--backend native)
  std::optional<Survey> survey;                 // roofprof survey only; written only when present
  std::vector<SimulatedCache> simulated_caches;  // L1 first; written only when not empty
  // Where simulated_caches came from: "option" (run --cache), "reported" (the host's sysfs or
  // CPUID); "" (not written) without simulated caches or in files that predate it.
  std::string simulated_caches_source;
  std::vector<std::string> events;  // counter names, in order
  // Regions' instances are recorded (Region::instances): at most this many per region, thread
  // and run. Null: not recorded (files written before roofprof recorded them, surveys, the
  // emulated-only run of an MPI rank, whose times are the emulator's).
  std::optional<uint64_t> instances_per_thread;
  std::vector<Region> regions;
  std::vector<std::string> warnings;
  bool operator==(const Run&) const = default;
};

nlohmann::json to_json(const Run& run);
// Throws UserError on a malformed or newer-schema document; the message names the member
// ("regions[2].calls: expected ...") but not the file (read_file adds it).
Run from_json(const nlohmann::json& j);

// Writes the result (common/output_file.hpp): a regular file atomically, an existing one kept
// as PATH.old; a device or stream in place; a fallback file named in the UserError when the
// write fails. `write_atomic(run, path)` checks the path first; `run` checks it before the
// program starts and passes the checked target.
void write_atomic(const Run& run, const OutputTarget& target);
void write_atomic(const Run& run, const std::string& path);
Run read_file(const std::string& path);  // UserError: unreadable, not JSON, wrong schema
// read_file of text already read; `path` names it in errors. Only UserError escapes.
Run parse_file_text(const std::string& text, const std::string& path);
// read_file of each path, on every core (the rank files of a large job); the runs in the
// order of `paths`. A bad file throws the error of the first one in that order.
std::vector<Run> read_files(const std::vector<std::string>& paths);

// This machine: uname, /proc/cpuinfo, sysconf. `pmu` is left empty (PMU detection fills it).
Host describe_host();

}  // namespace roofprof::result
