#include "tracer/memory.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace roofprof::tracer {

TraceeMemory::~TraceeMemory() {
  if (fd_ >= 0) ::close(fd_);
}

void TraceeMemory::open(pid_t pid) {
  if (fd_ >= 0) ::close(fd_);
  std::string path = "/proc/" + std::to_string(pid) + "/mem";
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
}

bool TraceeMemory::read(TraceeAddr at, void* buf, size_t len) const {
  return fd_ >= 0 && ::pread(fd_, buf, len, off_t(at.value())) == ssize_t(len);
}

bool TraceeMemory::write(TraceeAddr at, const void* buf, size_t len) const {
  return fd_ >= 0 && ::pwrite(fd_, buf, len, off_t(at.value())) == ssize_t(len);
}

std::optional<uint64_t> TraceeMemory::read_u64(TraceeAddr at) const {
  uint64_t v = 0;
  if (!read(at, &v, sizeof v)) return std::nullopt;
  return v;
}

}  // namespace roofprof::tracer
