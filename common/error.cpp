#include "common/error.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace roofprof {

std::string advice_for_errno(int err, const char* what) {
  std::string base = fmt::format("{}: {}", what, std::strerror(err));
  switch (err) {
    case EPERM:
    case EACCES:
      return base + " (run as root, or lower /proc/sys/kernel/perf_event_paranoid and "
                    "/proc/sys/kernel/yama/ptrace_scope, or grant CAP_PERFMON/CAP_SYS_PTRACE)";
    case ENOENT:
    case EOPNOTSUPP:
      return base + " (this CPU or VM does not expose that counter; try --backend emul or time)";
    case ESRCH:
      return base + " (no such process: check the pid)";
    case EMFILE:
      return base + " (too many open files: raise `ulimit -n`)";
    case EBUSY:
      return base + " (counter in use by another tool, e.g. the NMI watchdog: "
                    "echo 0 > /proc/sys/kernel/nmi_watchdog)";
    default:
      return base;
  }
}

}  // namespace roofprof
