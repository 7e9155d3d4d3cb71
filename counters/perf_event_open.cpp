#include "counters/perf_event_open.hpp"

#include <cerrno>
#include <cstring>

#include "common/log.hpp"
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
  const int fd = perf_system().open(attr, tid, cpu, group_fd);
  if (log::on(log::Category::Counters)) {
    const int err = errno;
    log::line(log::Category::Counters, "perf_event_open type {} config {:#x} config1 {:#x} thread {} cpu {} group {} -> {}",
              attr.type, uint64_t(attr.config), uint64_t(attr.config1), tid, cpu, group_fd,
              fd >= 0 ? fmt::format("fd {}", fd) : fmt::format("failed: {}", std::strerror(err)));
    errno = err;
  }
  return fd;
}

ssize_t perf_read(int fd, void* buf, size_t size) { return perf_system().read(fd, buf, size); }

}  // namespace roofprof::counters
