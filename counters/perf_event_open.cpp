#include "counters/perf_event_open.hpp"

#include "counters/perf_system.hpp"

namespace roofprof::counters {

PerfFd& PerfFd::operator=(PerfFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) perf_system().close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

PerfFd::~PerfFd() {
  if (fd_ >= 0) perf_system().close(fd_);
}

int perf_event_open_fd(const perf_event_attr& attr, pid_t tid, int cpu, int group_fd) {
  return perf_system().open(attr, tid, cpu, group_fd);
}

ssize_t perf_read(int fd, void* buf, size_t size) { return perf_system().read(fd, buf, size); }

}  // namespace roofprof::counters
