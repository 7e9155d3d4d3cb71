#pragma once
// The measured roofs of one machine: what `roofprof ceilings` prints and caches, and what
// `roofprof report` draws. Every number here was measured (or derived from measured numbers);
// what is unknown is std::nullopt and becomes null in JSON, never 0.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/cache_info.hpp"

namespace roofprof::ceilings {

enum class Isa { scalar, sse, avx2, avx512 };       // vector width: 1 lane, 128, 256, 512 bit
enum class Precision { sp, dp };
enum class Op { fma, add, mul, add_mul };           // add_mul: as many adds as muls
enum class Level { l1, l2, l3, dram };
enum class Kind { load, store, nt_store, copy, triad, random };
enum class Mode { quick, full };

// Median and spread of repeated samples (warm-up already discarded).
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
  int samples = 0;
};

struct ComputeCeiling {
  Isa isa;
  Precision precision;
  Op op;
  int threads;
  Spread gflops;
  double ghz;   // highest core clock measured between these samples (steal only lowers it)
  std::optional<double> theoretical_gflops;   // from the core model and `ghz`; null if unknown
  // Why the line failed the sanity check even after a remeasurement (ceilings/check.hpp); "" when
  // it passed.
  std::string flagged = {};
};

struct BandwidthCeiling {
  Level level;
  Kind kind;
  int threads;
  Isa isa;                      // instructions of the kernel (random: scalar loads)
  uint64_t working_set_bytes;   // all arrays of all threads together
  Spread gbytes_per_s;          // read + write
  double read_gbytes_per_s;     // median split by the kernel's read share
  double write_gbytes_per_s;
  std::optional<double> theoretical_gbytes_per_s;
  std::string flagged = {};     // as ComputeCeiling::flagged
};

struct LatencyCeiling {
  Level level;
  uint64_t working_set_bytes;
  Spread ns;                    // per dependent load
  double cycles;                // ns times the measured clock
};

// One point of the --full working-set sweep (1 thread, load kernel and pointer chase).
struct SweepPoint {
  uint64_t working_set_bytes;
  double load_gbytes_per_s;
  double latency_ns;
};

// A cache level's capacity as one thread measured it: the knee of the load-bandwidth sweep
// matched to the level (ceilings/knees.hpp); null where the sweep showed none for it.
struct MeasuredCache {
  int level;
  std::optional<uint64_t> effective_bytes;
  bool operator==(const MeasuredCache&) const = default;
};

// What the cache file is keyed by, plus facts needed to read the numbers.
struct MachineId {
  std::string cpu_model;
  int cores = 0;                // online logical CPUs this process may run on
  std::string kernel;
  std::string microcode;
  bool operator==(const MachineId&) const = default;
};

struct MethodInfo {
  Mode mode = Mode::quick;
  std::string timer;            // "rdtscp+lfence" or "clock_gettime"
  double timer_ghz = 0;         // ticks per ns of that timer
  double timer_overhead_ns = 0; // cost of one start/stop pair, measured
  double sample_ms = 0;         // target length of one sample
  int samples = 0;              // per ceiling, after one warm-up sample
  std::string core_model;       // name of the core model used for theoretical peaks, "" if none
  std::vector<std::string> parts;  // "compute", "bandwidth", "latency": what was measured
  std::string measured_at;      // UTC, ISO 8601
  double seconds = 0;           // how long the measurement took
};

struct FrequencyReading {
  int threads;
  Spread ghz;
};

struct Ceilings {
  MachineId machine;
  // L1 to L3 (data or unified), with line and shared_by_cpus known (machine.hpp cache_geometry);
  // ways is not recorded.
  std::vector<CacheInfo> caches;
  // One entry per level of `caches` when the hierarchy was measured (method.parts "hierarchy");
  // empty otherwise (a partial measurement without bandwidth or latency, an older file).
  std::vector<MeasuredCache> measured_caches;
  std::vector<std::string> isas;       // ISAs this CPU supports and roofprof measured
  MethodInfo method;
  std::vector<FrequencyReading> frequency;
  std::vector<ComputeCeiling> compute;
  std::vector<BandwidthCeiling> bandwidth;
  std::vector<LatencyCeiling> latency;
  std::vector<SweepPoint> sweep;       // --full only
};

}  // namespace roofprof::ceilings
