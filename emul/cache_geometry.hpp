#pragma once
// Cache geometry for the simulated hierarchy: the host's caches (common/cache_info.hpp) as the
// simulator models them, or an explicit description. A level is a roofprof::CacheInfo whose
// size, ways and line are known.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cache_info.hpp"

namespace roofprof::emul {

// "L1=48K:12:64,L2=1M:16:64,L3=32M:16:64" (SIZE[K|M|G]:WAYS:LINE; levels in order from L1,
// at most 4; the syntax of parse_cache_levels, common/cache_info.hpp). Throws UserError with a
// one-line explanation on malformed text or a geometry the simulator cannot model (line sizes
// must be equal powers of two; size a multiple of ways * line).
std::vector<CacheInfo> parse_cache_geometry(std::string_view text);

// The host's data/unified caches (host_caches(), common/cache_info.hpp: the kernel's
// /sys/devices/system/cpu/cpu0/cache, or ROOFPROF_HOST_CACHES in a test build), L1 up to the
// first level sysfs does not describe fully; where the kernel describes none (some VMs), from
// CPUID (cpuid_cache_geometry). With another `root`, that directory's alone (tests). Throws
// UserError when neither describes them.
std::vector<CacheInfo> host_cache_geometry(const std::string& root = kSysfsCacheRoot);

// The caches CPUID describes (`described`: HostCaches::cpuid), up to the first level it does not.
// A level whose associativity CPUID does not give (AMD's legacy L3 leaf on a CPU that hides
// its topology leaf) is modelled kAssumedWays-way: an assumption, said in docs/emulation.md.
inline constexpr uint64_t kAssumedWays = 16;
std::vector<CacheInfo> cpuid_cache_geometry(const std::vector<CacheInfo>& described);

// The hierarchy as the simulator models it: `levels` with `inclusive` set for each level below
// L1 (null for L1). The levels between L1 and the last are inclusive; the last is inclusive or
// non-inclusive (filled by the victims of the level above: emul/tool/rp_cache.h) as `asked`, else,
// for the host's geometry (`host`), as `described` (the host's caches by CPUID, HostCaches::cpuid)
// says of its level, else inclusive. Throws UserError for a non-inclusive single level.
std::vector<CacheInfo> simulated_hierarchy(std::vector<CacheInfo> levels, std::optional<bool> asked, bool host,
                                           const std::vector<CacheInfo>& described);

// The largest last level the simulation takes from the host without a warning: 96 MiB, the L3 of
// one AMD CCD with 3D V-Cache (32 + 64 MiB, Zen 3/4/5 X3D parts), the most any AMD core can fill
// (its L3 is its CCD's). Larger values are reported by VMs for the host's whole socket (508 MB on
// the development VM's Zen 5 host, 300 MB on a 16-core VM whose latency is DRAM's at 37.5 MB);
// Intel's Xeons since Skylake-SP share a socket's L3 (up to 504 MB, Xeon 6980P) over a mesh,
// where the warning is a caution rather than an error. docs/emulation.md, "Where the geometry
// comes from".
inline constexpr uint64_t kPlausibleLastLevel = 96ull << 20;

// A warning (one line) when `reported`'s last level is larger than kPlausibleLastLevel; null
// otherwise (also for an empty hierarchy).
std::optional<std::string> implausible_last_level(const std::vector<CacheInfo>& reported);

// Same checks as parse_cache_geometry; throws UserError.
void check_cache_geometry(const std::vector<CacheInfo>& levels);

std::string to_string(const std::vector<CacheInfo>& levels);  // in parse_cache_geometry's syntax

}  // namespace roofprof::emul
