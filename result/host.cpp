// describe_host(): what machine a result was measured on.
#include <sys/utsname.h>
#include <unistd.h>

#include "common/cpu_info.hpp"
#include "result/result.hpp"

namespace roofprof::result {

Host describe_host() {
  Host h;
  struct utsname u {};
  if (uname(&u) == 0) {
    h.hostname = u.nodename;
    h.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
  }
  const CpuInfo cpu = read_cpuinfo();
  h.cpu_model = cpu.model_name;
  h.cpu_vendor = cpu.vendor;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) h.logical_cpus = int(n);
  return h;
}

}  // namespace roofprof::result
