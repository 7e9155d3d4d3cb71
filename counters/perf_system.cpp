#include "counters/perf_system.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "counters/scripted_pmu.hpp"
#include "counters/sysfs_pmu.hpp"

namespace roofprof::counters {
namespace {

class KernelPerfSystem : public PerfSystem {
 public:
  int open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd) override {
    perf_event_attr copy = attr;  // the kernel may write back attr.size on E2BIG
    return static_cast<int>(
        ::syscall(SYS_perf_event_open, &copy, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC));
  }
  ssize_t read(int fd, void* buf, size_t size) override { return ::read(fd, buf, size); }
  void close(int fd) override { ::close(fd); }
  std::string sysfs_root() override { return kSysfsPmuRoot; }
  std::optional<int> kernel_setting(const std::string& name) override {
    std::ifstream in("/proc/sys/kernel/" + name);
    int v = 0;
    if (in >> v) return v;
    return std::nullopt;
  }
  CpuInfo cpu_info() override { return read_cpuinfo(); }
};

PerfSystem* installed = nullptr;

PerfSystem& default_system() {
  static KernelPerfSystem kernel;
  static std::unique_ptr<PerfSystem> scripted = []() -> std::unique_ptr<PerfSystem> {
    const char* file = std::getenv("ROOFPROF_SCRIPTED_PMU");
    if (!file || !*file) return nullptr;
    if (!scripted_pmu_honoured()) {
      std::fprintf(stderr, "roofprof: ROOFPROF_SCRIPTED_PMU ignored: this build has no test seams\n");
      return nullptr;
    }
    return load_scripted_pmu(file);
  }();
  if (scripted) return *scripted;
  return kernel;
}

}  // namespace

bool scripted_pmu_honoured() {
#ifdef ROOFPROF_TEST_SEAMS
  return true;
#else
  return false;
#endif
}

PerfSystem& perf_system() { return installed ? *installed : default_system(); }

PerfSystem* replace_perf_system(PerfSystem* s) {
  PerfSystem* old = installed;
  installed = s;
  return old;
}

}  // namespace roofprof::counters
