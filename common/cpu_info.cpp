#include "common/cpu_info.hpp"

#include <cstdlib>

#include <fstream>
#include <sstream>

namespace roofprof {
namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  const size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A decimal field; -1 (unknown) when it is not a number.
int number(const std::string& v) {
  char* end = nullptr;
  const long x = std::strtol(v.c_str(), &end, 10);
  return end != v.c_str() ? int(x) : -1;
}

}  // namespace

std::string CpuInfo::vendor_short() const {
  if (vendor == "GenuineIntel") return "intel";
  if (vendor == "AuthenticAMD") return "amd";
  return vendor;
}

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  std::istringstream in{std::string(text)};
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "processor") {
      ++info.logical_cpus;
      if (info.logical_cpus > 1) first = false;
    }
    if (!first) continue;
    if (key == "vendor_id") info.vendor = value;
    else if (key == "cpu family") info.family = number(value);
    else if (key == "model") info.model = number(value);
    else if (key == "model name") info.model_name = value;
    else if (key == "flags") {
      std::istringstream f(value);
      std::string flag;
      while (f >> flag) info.flags.insert(flag);
    }
  }
  return info;
}

CpuInfo read_cpuinfo(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_cpuinfo(ss.str());
}

}  // namespace roofprof
