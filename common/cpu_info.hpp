#pragma once
// The CPU as /proc/cpuinfo describes it (first processor entry): the one model of the host CPU,
// used by the counter backends (event-set choice), the result (`host`) and `events`.
#include <set>
#include <string>
#include <string_view>

namespace roofprof {

struct CpuInfo {
  std::string vendor;      // "GenuineIntel", "AuthenticAMD"; "" when unknown
  int family = -1;
  int model = -1;
  std::string model_name;  // "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz"
  std::set<std::string> flags;
  int logical_cpus = 0;
  bool has(const std::string& flag) const { return flags.count(flag) != 0; }
  std::string vendor_short() const;  // "intel", "amd", or the raw vendor string
};

CpuInfo parse_cpuinfo(std::string_view text);
CpuInfo read_cpuinfo(const std::string& path = "/proc/cpuinfo");

}  // namespace roofprof
