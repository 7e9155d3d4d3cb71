#pragma once
// Measure the ceilings of this machine. Takes seconds (quick) to minutes (full); threads are
// pinned one per allowed CPU.
#include <functional>
#include <string>
#include <vector>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

struct MeasureOptions {
  Mode mode = Mode::quick;
  bool compute = true;
  bool bandwidth = true;
  bool latency = true;
  std::vector<int> thread_counts;  // empty: 1 and all allowed CPUs
  std::vector<Isa> isas;           // compute ISAs to measure; empty: every one CPUID reports
  std::vector<Level> levels;       // bandwidth and latency levels; empty: every level
  double sample_ms = 0;            // 0: 20 ms (quick) or 50 ms (full)
  int samples = 0;                 // 0: 3 (quick) or 9 (full), after one warm-up sample
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
};

Ceilings measure(const MeasureOptions& options);

// What --quick leaves to --full (besides the sweep): add and mul alone, which are never an ISA's
// best op on a modelled core (add_mul has both pipes, fma counts two flops) and report draws each
// ISA's best op; random access, which report draws no roof from.
bool measured_in(Mode mode, Op op);
bool measured_in(Mode mode, Kind kind);

}  // namespace roofprof::ceilings
