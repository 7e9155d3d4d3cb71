#pragma once
// The data and unified caches of the CPU this runs on, from CPUID, for machines whose kernel
// does not describe them in /sys/devices/system/cpu/cpu0/cache (seen on a Firecracker VM with
// Linux 6.18). Sources, in order: Intel's deterministic cache leaf 4; AMD's cache topology
// leaf 0x8000001D (when CPUID 0x80000001 ECX bit 22, TopologyExtensions, is set); AMD's legacy
// L1/L2/L3 leaves 0x80000005 and 0x80000006 (AMD64 APM vol. 3, appendix E). Facts only: a
// field CPUID does not give is marked unknown, never invented.
#include <cstdint>
#include <vector>

namespace roofprof {

struct CpuidCache {
  int level = 0;
  uint64_t size = 0;          // bytes
  uint64_t ways = 0;          // 0: CPUID does not say (legacy AMD leaf, "see 0x8000001D")
  uint64_t line = 0;          // bytes
  int shared_by_threads = 0;  // 0: not given
};

// L1 first; empty when CPUID describes no cache.
std::vector<CpuidCache> cpuid_caches();

// The associativity of AMD's legacy L2/L3 code (Fn8000_0006 ECX[15:12], EDX[15:12]); 0 for
// "disabled", "see Fn8000_001D" and reserved codes, UINT64_MAX for fully associative.
uint64_t amd_legacy_ways(unsigned code);

}  // namespace roofprof
