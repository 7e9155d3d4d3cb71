#pragma once
// The hierarchy run's emulated pass simulates when --cache does not give one: the host's
// reported levels, resized to the hierarchy `roofprof ceilings` measured (its capacity knees,
// ceilings/knees.hpp) where the last level holds less than half of what is reported, as a VM that
// reports its host's whole socket does (docs/emulation.md, "Where the geometry comes from").
#include <string>
#include <vector>

#include "common/cache_info.hpp"

namespace roofprof::run {

struct HostGeometry {
  std::vector<CacheInfo> levels;     // to simulate; empty: the host's as reported
  std::string source;                // "measured" or "reported" (simulated_caches_source)
  std::string measured_in;           // the ceilings file the measurement came from; "" if none
  bool last_level_measured = false;  // the file has a knee for the reported last level
};

// From `ceilings_file` (run --ceilings; UserError when it is not a ceilings file), or, when it
// is "", this machine's cached ceilings (`roofprof ceilings`; none, or unreadable: reported; not
// read when ROOFPROF_HOST_CACHES replaces the host's caches in a test build: it measured others).
// `reported`: the host's levels as the emulator models them (emul::host_cache_geometry()).
HostGeometry host_geometry(const std::string& ceilings_file, const std::vector<CacheInfo>& reported);

}  // namespace roofprof::run
