#pragma once
// Cache geometry for the simulated hierarchy: from sysfs or from an explicit description.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::emul {

struct CacheLevel {
  uint64_t size = 0;  // bytes
  uint64_t ways = 0;
  uint64_t line = 0;  // bytes
  bool operator==(const CacheLevel&) const = default;
};

// "L1=48K:12:64,L2=1M:16:64,L3=32M:16:64" (SIZE[K|M|G]:WAYS:LINE; levels in order from L1,
// at most 4). Throws UserError with a one-line explanation on malformed text or a geometry
// the simulator cannot model (line sizes must be equal powers of two; size a multiple of
// ways * line).
std::vector<CacheLevel> parse_cache_geometry(std::string_view text);

// The data/unified caches of cpu0 from /sys/devices/system/cpu/cpu0/cache (or `root`),
// L1 first. Throws UserError when sysfs does not describe them.
std::vector<CacheLevel> host_cache_geometry(const std::string& root = "/sys/devices/system/cpu/cpu0/cache");

// Same checks as parse_cache_geometry; throws UserError.
void check_cache_geometry(const std::vector<CacheLevel>& levels);

std::string to_string(const std::vector<CacheLevel>& levels);  // in parse_cache_geometry's syntax

}  // namespace roofprof::emul
