#pragma once
// The perf_event_open(2) system call and an owning file descriptor for its result.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>

namespace roofprof::counters {

// Owns one perf_event file descriptor; closes it on destruction. Move-only.
class PerfFd {
 public:
  PerfFd() = default;
  explicit PerfFd(int fd) : fd_(fd) {}
  PerfFd(PerfFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  PerfFd& operator=(PerfFd&& o) noexcept;
  PerfFd(const PerfFd&) = delete;
  PerfFd& operator=(const PerfFd&) = delete;
  ~PerfFd();
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// perf_event_open(attr, pid=tid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC). Returns -1 and sets
// errno on failure (no exception: callers turn errno into advice). Through perf_system().
int perf_event_open_fd(const perf_event_attr& attr, pid_t tid, int cpu, int group_fd);
// read(2) of a perf fd, through perf_system().
ssize_t perf_read(int fd, void* buf, size_t size);

}  // namespace roofprof::counters
