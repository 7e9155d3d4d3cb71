#pragma once
// The data and unified caches of the host: the one model of them, used by `ceilings` (working
// sets), the emulator (the simulated hierarchy, emul/cache_geometry.hpp), `run --cache-state
// cold` and selftest. Next to common/cpu_info.hpp, the one model of the CPU.
//
// Sources: the kernel (/sys/devices/system/cpu/cpu0/cache), and CPUID for machines whose
// kernel does not describe them (seen on a Firecracker VM with Linux 6.18): Intel's
// deterministic cache leaf 4; AMD's cache topology leaf 0x8000001D (when CPUID 0x80000001 ECX
// bit 22, TopologyExtensions, is set); AMD's legacy L1/L2/L3 leaves 0x80000005 and 0x80000006
// (AMD64 APM vol. 3, appendix E). Facts only: a field the source does not give is 0 (unknown),
// never invented; each user decides what to assume.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof {

struct CacheInfo {
  int level = 0;           // 1: L1
  uint64_t size = 0;       // bytes
  uint64_t ways = 0;       // 0: not given (AMD's legacy leaf, "see 0x8000001D"); kFullyAssociative
  uint64_t line = 0;       // bytes; 0: not given
  int shared_by_cpus = 0;  // logical CPUs sharing it; 0: not given
  // Inclusive of the levels nearer the core (CPUID leaf 4 and 0x8000001D, EDX bit 1); null: not
  // given (sysfs, AMD's legacy leaves).
  std::optional<bool> inclusive = std::nullopt;
  bool operator==(const CacheInfo&) const = default;
};

inline constexpr uint64_t kFullyAssociative = std::numeric_limits<uint64_t>::max();
inline constexpr const char* kSysfsCacheRoot = "/sys/devices/system/cpu/cpu0/cache";

// The data and unified caches the kernel lists for cpu0 under `root` (level and size known),
// by level, L1 first; empty when it lists none.
std::vector<CacheInfo> sysfs_caches(const std::string& root = kSysfsCacheRoot);

// The data and unified caches CPUID describes, L1 first; empty when it describes none.
std::vector<CacheInfo> cpuid_caches();

// The associativity of AMD's legacy L2/L3 code (Fn8000_0006 ECX[15:12], EDX[15:12]); 0 for
// "disabled", "see Fn8000_001D" and reserved codes, kFullyAssociative for fully associative.
uint64_t amd_legacy_ways(unsigned code);

// "48K", "1M", "32768K", "64" (sysfs; K/KB/KiB, M, G suffixes): bytes; 0 when malformed.
uint64_t parse_cache_size(std::string_view s);

}  // namespace roofprof
