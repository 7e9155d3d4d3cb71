#pragma once
// The seam between roofprof's counting code and the kernel: every perf_event_open(2), read(2)
// and close(2) of a perf file descriptor, the sysfs PMU directory, the /proc/sys/kernel settings
// and /proc/cpuinfo go through the process's PerfSystem. The real one calls the kernel; tests
// install a ScriptedPmu (counters/scripted_pmu.hpp) so that the same run path (encoding, group
// plans, opens, reads, deltas, scaling, W and Q) runs on a machine without a PMU.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

#include "common/cpu_info.hpp"

namespace roofprof::counters {

class PerfSystem {
 public:
  virtual ~PerfSystem() = default;
  // perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC): an fd, or -1 with errno.
  virtual int open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd) = 0;
  // read(2) of a perf fd: bytes read, or -1 with errno.
  virtual ssize_t read(int fd, void* buf, size_t size) = 0;
  virtual void close(int fd) = 0;
  // The directory whose entries are the kernel's PMUs (/sys/bus/event_source/devices).
  virtual std::string sysfs_root() = 0;
  // /proc/sys/kernel/<name> as an integer (perf_event_paranoid, nmi_watchdog); nullopt if absent.
  virtual std::optional<int> kernel_setting(const std::string& name) = 0;
  virtual CpuInfo cpu_info() = 0;
};

// The process's perf system: the kernel, unless a test build was started with
// ROOFPROF_SCRIPTED_PMU=<file> (see scripted_pmu.hpp) or a test replaced it.
PerfSystem& perf_system();
// Installs `s` (not owned; nullptr restores the default) and returns the previous one.
PerfSystem* replace_perf_system(PerfSystem* s);

// True when this build honours ROOFPROF_SCRIPTED_PMU (CMake option ROOFPROF_TEST_SEAMS).
bool scripted_pmu_honoured();

}  // namespace roofprof::counters
