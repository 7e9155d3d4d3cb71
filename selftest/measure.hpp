#pragma once
// Runs `roofprof run` on the kernels program, as any program is profiled (regions by symbol,
// through the same tracer, agent and emulation paths), and reads per-call values back from
// the result files.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "selftest/plan.hpp"

namespace roofprof::selftest {

// One program run's values for one case, per call (the run's totals / calls).
struct Sample {
  std::optional<double> work, read, write;       // W, DRAM Q_r, DRAM Q_w; null: not measured
  std::map<std::string, double> flops_by_class;  // dp_256, ...
  std::optional<double> time_min_s, time_max_s;  // per call
  bool multiplexed = false;
};

struct Row {
  Case c;
  std::string backend;  // "emul", "perf"
  std::vector<Sample> samples;
};

struct Runner {
  std::string roofprof;  // the roofprof executable (this one)
  std::string kernels;   // roofprof-selftest-kernels
  std::string workdir;   // result files go here
  std::function<void(const std::string&)> progress;  // one line per roofprof run
  // The hierarchy the emulated runs simulate (run --cache-geometry); "": the host's caches.
  std::string cache_geometry;
};

// Every case of `plan` through `backend`: one `roofprof run --backend BACKEND --cache-state
// STATE` per (size class, cache state) and repeat, with one region per kernel. Throws
// UserError with roofprof's own message when a run fails.
std::vector<Row> measure(const Plan& plan, const std::string& backend, const Runner& runner);

// The samples of `cases` in one result file (exposed for tests).
std::vector<Sample> read_samples(const std::string& result_file, const std::vector<Case>& cases);

// <dir of /proc/self/exe>/../lib/roofprof/roofprof-selftest-kernels; UserError when absent.
std::string kernels_program();

}  // namespace roofprof::selftest
