#pragma once
// What measuring cost: the probes' ptrace stops, the in-process agent's boundary and its reader.
// The probe mechanisms (tracer/, preload/) measure these; the result file (result/result.hpp,
// under the same names in roofprof::result) writes them. Value types, no behaviour.
#include <cstdint>
#include <optional>

namespace roofprof::overhead {

// What a region's breakpoints cost the run, estimated from measured ptrace stops
// (docs/methodology.md, "What probes cost"). Optional member of schema 1: present only when the
// estimate is a large part of the run or roofprof stopped probing the region.
struct ProbeCost {
  uint64_t ptrace_stops = 0;
  double estimated_s = 0;  // ptrace_stops x the measured cost of one stop: an estimate
  // Probing stopped this far into the run (the probes would have made it more than 10x slower):
  // the region's calls after that are not counted. Null: probed to the end.
  std::optional<double> stopped_at_s;
  bool operator==(const ProbeCost&) const = default;
  // Runs of --repeat, or result files merged: stops and cost add up, the first stop is kept.
  ProbeCost& operator+=(const ProbeCost& c) {
    ptrace_stops += c.ptrace_stops;
    estimated_s += c.estimated_s;
    if (!stopped_at_s) stopped_at_s = c.stopped_at_s;
    return *this;
  }
};

// What one boundary of the in-process agent costs, measured at start in the program roofprof
// started (docs/preload.md, "What a boundary costs"). Optional member of schema 1: present
// when the agent measured regions (entry patches, GOT hooks) and its calibration came through.
struct AgentBoundary {
  double inside_s = 0;    // per call: the part of the probe's work inside a region instance (median)
  double per_call_s = 0;  // per call: everything the probe adds to the program (entry and return)
  uint32_t calls = 0;     // calibration calls the median is over
  bool operator==(const AgentBoundary&) const = default;
};

// What draining the in-process agent's records cost roofprof (docs/preload.md, "Records and the
// C++ side"): the CPU time of the thread that drains, spent inside the reader's calls.
struct AgentReader {
  double cpu_s = 0;     // user + system CPU time of roofprof's draining thread inside the reader
  uint64_t sleeps = 0;  // times the reader slept on the doorbell
  uint64_t rings = 0;   // of those, times an agent woke it (a ring past its mark, full, or a thread or process ending)
  bool operator==(const AgentReader&) const = default;
};

}  // namespace roofprof::overhead
