#include "counters/sysfs_pmu.hpp"

#include <fstream>
#include <sstream>

namespace roofprof::counters {

std::optional<uint32_t> sysfs_pmu_type(const std::string& name, const std::string& root) {
  std::ifstream in(root + "/" + name + "/type");
  uint32_t type = 0;
  if (!(in >> type)) return std::nullopt;
  return type;
}

std::vector<int> parse_cpu_list(const std::string& list) {
  std::vector<int> out;
  std::stringstream ss(list);
  std::string part;
  while (std::getline(ss, part, ',')) {
    int lo = 0, hi = 0;
    char dash = 0;
    std::istringstream p(part);
    if (!(p >> lo)) continue;
    if (p >> dash >> hi && dash == '-' && hi >= lo) {
      for (int c = lo; c <= hi; ++c) out.push_back(c);
    } else {
      out.push_back(lo);
    }
  }
  return out;
}

std::vector<int> sysfs_pmu_cpus(const std::string& name, const std::string& root) {
  std::ifstream in(root + "/" + name + "/cpumask");
  std::string line;
  if (!std::getline(in, line)) return {0};  // no cpumask file: the PMU is not per socket
  return parse_cpu_list(line);
}

}  // namespace roofprof::counters
