#pragma once
// Facts about this machine read from CPUID, /proc and sysfs.
#include <optional>
#include <string>
#include <vector>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

// CPU model, logical CPUs we may run on, kernel release, microcode revision.
MachineId current_machine();

// CPUs in this process's affinity mask, ascending.
std::vector<int> allowed_cpus();

// Distinct physical cores among `cpus` (sysfs topology; each CPU counts as one if unknown).
int physical_cores(const std::vector<int>& cpus);

// The host's data and unified caches L1 to L3 (common/cache_info.hpp, host_caches(): sysfs, else CPUID), by
// level; a line size not given is taken as 64 bytes, a cache not said to be shared as private.
// Throws UserError if neither source describes them.
std::vector<CacheInfo> cache_geometry();

// ISAs this CPU and OS support, by CPUID (__builtin_cpu_supports), narrowest first.
std::vector<Isa> supported_isas();
bool supports(Isa isa);
// FMA instructions at scalar/128-bit width need FMA3 and AVX (VEX encoding).
bool supports_fma(Isa isa);

struct CpuSignature {
  std::string vendor;  // "AuthenticAMD", "GenuineIntel", ...
  unsigned family = 0;
  unsigned model = 0;
  bool invariant_tsc = false;
};
CpuSignature cpu_signature();

}  // namespace roofprof::ceilings
