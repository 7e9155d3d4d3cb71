#pragma once
// Kernel PMUs as listed under /sys/bus/event_source/devices.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "counters/perf_system.hpp"

namespace roofprof::counters {

inline constexpr const char* kSysfsPmuRoot = "/sys/bus/event_source/devices";

// perf_event_attr.type of PMU `name`; nullopt when the PMU does not exist.
std::optional<uint32_t> sysfs_pmu_type(const std::string& name, const std::string& root = perf_system().sysfs_root());
// CPUs to open a system-wide (uncore) event on: the PMU's cpumask, one CPU per socket.
std::vector<int> sysfs_pmu_cpus(const std::string& name, const std::string& root = perf_system().sysfs_root());
// "0,2-3" -> {0, 2, 3}; malformed parts are skipped.
std::vector<int> parse_cpu_list(const std::string& list);

}  // namespace roofprof::counters
