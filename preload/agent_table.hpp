#pragma once
// The text table of an agent record file (record_format.h): modules scanned, region ids the
// agent assigned, which modules call each one through a hooked GOT slot, the agent's
// calibration at start, and warnings.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::preload {

struct AgentTable {
  struct Module {
    std::string path;
    bool is_main = false;
    uint64_t bias = 0;  // runtime address = bias + link-time address
  };
  struct Region {
    uint32_t spec = 0;       // spec index in the planner
    std::string symbol;      // raw (mangled) name the agent matched
    std::vector<std::string> callers;  // modules whose GOT slots now call the trampoline
  };
  std::vector<Module> modules;
  std::map<uint32_t, Region> regions;  // by agent region id
  // "C <calls> <ns>": the agent's calibration calls at start and their whole time (calibrate.c)
  struct Calibration {
    uint32_t calls = 0;
    uint64_t ns = 0;     // the calls' whole time
    uint64_t timed = 0;  // the part the agent's boundaries timed themselves (probe_ns)
    uint64_t clock_only_ns = 0;  // as many calls with the clock alone (no counter read)
    // What each boundary costs outside the agent's own clock reads (two boundaries a call).
    double untimed_per_boundary_ns() const { return ns > timed ? double(ns - timed) / (2.0 * calls) : 0.0; }
  };
  std::optional<Calibration> calibration;
  std::vector<std::string> warnings;
};

// Parses complete lines only (a trailing partial line is left for the next call); throws
// nothing: malformed lines are reported in `warnings`.
AgentTable parse_table(std::string_view text);

}  // namespace roofprof::preload
