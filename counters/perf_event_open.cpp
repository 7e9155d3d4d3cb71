#include "counters/perf_event_open.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace roofprof::counters {

PerfFd& PerfFd::operator=(PerfFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

PerfFd::~PerfFd() {
  if (fd_ >= 0) ::close(fd_);
}

int perf_event_open_fd(const perf_event_attr& attr, pid_t tid, int cpu, int group_fd) {
  perf_event_attr copy = attr;  // the kernel may write back attr.size on E2BIG
  return static_cast<int>(
      ::syscall(SYS_perf_event_open, &copy, tid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace roofprof::counters
