#pragma once
// Reads and writes the tracee's memory through /proc/PID/mem (works on read-only text pages
// of a ptrace-stopped process).
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "tracer/tracee_addr.hpp"

namespace roofprof::tracer {

class TraceeMemory {
 public:
  TraceeMemory() = default;
  explicit TraceeMemory(pid_t pid) { open(pid); }
  ~TraceeMemory();
  TraceeMemory(const TraceeMemory&) = delete;
  TraceeMemory& operator=(const TraceeMemory&) = delete;

  void open(pid_t pid);  // (re)opens; needed after exec
  bool read(TraceeAddr at, void* buf, size_t len) const;
  bool write(TraceeAddr at, const void* buf, size_t len) const;
  std::optional<uint64_t> read_u64(TraceeAddr at) const;

 private:
  int fd_ = -1;
};

}  // namespace roofprof::tracer
