#pragma once
// An event set: what roofprof counts on one microarchitecture family and how the counts
// become W (flops) and Q (bytes). Event sets are data files under counters/events/ (format in
// docs/counters.md), embedded into the binary at build time (event_catalog.hpp).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::counters {

enum class EventScope {
  thread,  // counted per thread (the tracer opens one group set per thread)
  uncore,  // counted system-wide per socket; includes other processes' activity
};

struct EventLine {
  std::string id;        // name used in formulas and results, e.g. "dp_256"
  EventScope scope = EventScope::thread;
  // "EVENT:UMASK" (libpfm4, qualified with the core PMU at encode time),
  // "pmu::EVENT:UMASK" (libpfm4, fully qualified) or "raw:0x1c7" (perf config).
  std::string encoding;
  // "raw:0x..." given after a libpfm4 name: the same event's perf config, used when the
  // installed libpfm4 cannot encode the name (no table for this CPU, or its PMU not active).
  std::string raw_fallback;
  std::string perf_pmu;  // sysfs PMU ("cpu_core", "uncore_imc_0"); "" = the core PMU
  bool fixed = false;    // occupies a fixed counter, not a programmable one
  int cost = 1;          // programmable counters used (2 = AMD event paired with the merge event)
  int line = 0;
};

struct Term {
  double weight = 1;
  std::string id;
};

struct Formula {
  std::string name;  // "W", "Q.read", "Q.write", "Q~.read", ...
  std::vector<Term> terms;
  bool approximate = false;  // declared with `approx`: labelled as an approximation
  int line = 0;
};

struct CounterLimit {
  std::string perf_pmu;  // "" = the core PMU
  int count = 0;         // programmable counters per hardware thread
};

// CPUID models `first`..`last` (inclusive) of one family, as the kernel groups them
// (arch/x86/kernel/cpu/amd.c bsp_init_amd: Zen 4 = family 0x19 models 0x10-0x1f, 0x60-0xaf).
struct CpuModels {
  int family = -1;
  int first = -1, last = -1;
  bool contains(int f, int m) const { return f == family && m >= first && m <= last; }
  bool operator==(const CpuModels&) const = default;
};

struct EventSet {
  std::string model;  // "skx"
  std::string title;  // "Intel Skylake-SP, Cascade Lake"
  std::string vendor; // "intel" | "amd"
  std::vector<std::string> pfm_pmus;       // libpfm4 core PMU names that select this set
  std::vector<CpuModels> cpus;             // CPUID family/model ranges that select it
  bool user = false;                       // loaded from a user event directory, not shipped
  std::vector<CounterLimit> counters;
  std::optional<std::string> fp_missing;   // set when the CPU has no FP arithmetic counters: why
  std::vector<EventLine> events;
  std::vector<Formula> formulas;
  std::vector<std::string> notes;
  std::string source;  // file name, for messages

  // The exact formula `name` (approximate = false) or its per-core approximation.
  const Formula* formula(const std::string& name, bool approximate = false) const;
  int counter_limit(const std::string& perf_pmu) const;  // 0 when not declared
  std::vector<const EventLine*> lines(EventScope scope) const;
};

// Parses one event-set file. Throws UserError("<source>:<line>: ...") on any error.
EventSet parse_event_set(std::string_view text, const std::string& source);

// W or Q from per-id values (thread ids: the event's value; uncore ids: the sum over boxes).
// nullopt when an id is missing or not counted (NaN).
std::optional<double> evaluate(const Formula& f, const std::map<std::string, double>& values);

// "1*dp_scalar + 2*dp_128 + ..." as written in the file.
std::string to_string(const Formula& f);

}  // namespace roofprof::counters
