#pragma once
// Pieces of describe_host() that tests can feed with text.
#include <string>
#include <string_view>

namespace roofprof::result {

struct CpuInfo {
  std::string model;   // "model name" of the first processor, "" when absent
  std::string vendor;  // "vendor_id" of the first processor, "" when absent
};
// Parses the text of /proc/cpuinfo.
CpuInfo parse_cpuinfo(std::string_view text);

}  // namespace roofprof::result
