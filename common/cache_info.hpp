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
//
// Every consumer reads the host's caches through host_caches(), which a test build lets
// ROOFPROF_HOST_CACHES replace with another host's (the suite's checks on any host:
// scripts/check-any-host.sh, docs/validation.md).
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

// "L1=48K:12:64,L2=1M:16:64,L3=32M:16:64" (SIZE[K|M|G]:WAYS:LINE, levels in order from L1), or
// the same as "L1=48K/12,L2=1M/16,L3=32M/16" (SIZE/WAYS[/LINE], LINE kDefaultCacheLine when
// left out; one separator per level): the levels as written (level, size, ways, line). Throws
// UserError with a one-line explanation when malformed. The syntax of
// emul::parse_cache_geometry (which adds what the simulator can model) and of
// ROOFPROF_HOST_CACHES.
inline constexpr uint64_t kDefaultCacheLine = 64;  // the line of every x86-64 CPU to date
std::vector<CacheInfo> parse_cache_levels(std::string_view text);

// parse_cache_levels' text with an optional last item "inclusive" or "non-inclusive": the last
// level's inclusion of the levels above it (null when absent). The syntax of ROOFPROF_HOST_CACHES
// and of run --cache.
struct CacheSpec {
  std::vector<CacheInfo> levels;
  std::optional<bool> last_inclusive;
};
CacheSpec parse_cache_spec(std::string_view text);

// The host's caches as its two sources describe them: the one model every consumer reads
// (ceilings' working sets, the emulator's host geometry and its last level's inclusion,
// `run --cache-state cold`'s eviction size, selftest's sizes).
struct HostCaches {
  std::vector<CacheInfo> sysfs;  // sysfs_caches()
  std::vector<CacheInfo> cpuid;  // cpuid_caches()
  bool replaced = false;         // by ROOFPROF_HOST_CACHES
};

// The host's caches. In a build with test seams (CMake option ROOFPROF_TEST_SEAMS),
// ROOFPROF_HOST_CACHES=<levels>[,inclusive|,non-inclusive] replaces both sources with another
// host's (host_caches_from_text); a build without them ignores it with a note on stderr (once).
// Throws UserError, naming the variable, when its text is malformed.
HostCaches host_caches();

// What ROOFPROF_HOST_CACHES's text says, as both sources: parse_cache_levels' levels, shared by
// no one known, the last one's inclusion of the levels above it as the optional last item says
// ("inclusive", "non-inclusive"; absent: not given, as sysfs does not give it).
HostCaches host_caches_from_text(std::string_view text);

// True when this build honours ROOFPROF_HOST_CACHES (CMake option ROOFPROF_TEST_SEAMS).
bool host_caches_honoured();
inline constexpr const char* kHostCachesVariable = "ROOFPROF_HOST_CACHES";

}  // namespace roofprof
