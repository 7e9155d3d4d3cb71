#pragma once
// Ceilings files and the per-machine cache. The cache file lives in $XDG_CACHE_HOME/roofprof
// (else ~/.cache/roofprof), is named after the CPU model and core count, and records the whole
// machine key (CPU model, cores, kernel, microcode). It is reused when the key matches and it
// covers what is asked; it is measured again, with a warning, when it is stale (kernel or
// microcode changed, older schema) or unreadable.
#include <filesystem>
#include <functional>
#include <string>

#include "ceilings/measure.hpp"
#include "ceilings/types.hpp"
#include "common/cache_dir.hpp"

namespace roofprof::ceilings {

// Reads a ceilings file; throws UserError if it cannot be read or is not one.
Ceilings load(const std::filesystem::path& path);

// Writes atomically (temporary file, then rename); throws UserError on failure.
void save(const Ceilings& c, const std::filesystem::path& path);

// The cache directory: roofprof::default_cache_dir() (common/cache_dir.hpp).
using roofprof::default_cache_dir;
std::filesystem::path cache_file(const std::filesystem::path& dir, const MachineId& id);

struct CacheOptions {
  MeasureOptions measure;
  std::filesystem::path dir;  // empty: default_cache_dir()
  bool remeasure = false;     // ignore a valid cache entry
  std::function<void(const std::string&)> warn;  // empty: "roofprof: warning: ..." on stderr
};

struct Loaded {
  Ceilings ceilings;
  std::filesystem::path path;  // the cache file (empty if there is no cache directory)
  bool from_cache = false;
};

// The ceilings of this machine: from the cache if valid, else measured and cached.
Loaded load_or_measure(const CacheOptions& options);

}  // namespace roofprof::ceilings
