#include "common/evict.hpp"

#include <sched.h>
#include <sys/mman.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>

#include "common/error.hpp"

namespace roofprof {

CacheEvictor::CacheEvictor(size_t bytes) : bytes_(bytes / 64 * 64) {
  void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw UserError(advice_for_errno(errno, "mapping the cache eviction buffer"));
  buf_ = static_cast<volatile uint64_t*>(p);
}

CacheEvictor::~CacheEvictor() { ::munmap(const_cast<uint64_t*>(buf_), bytes_); }

void CacheEvictor::evict(int cpu) {
  cpu_set_t old;
  bool pinned = false;
  if (cpu >= 0 && cpu < CPU_SETSIZE && ::sched_getaffinity(0, sizeof old, &old) == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned = ::sched_setaffinity(0, sizeof one, &one) == 0;
  }
  // One store per line, then one load per line: every line of the buffer passes through every
  // level, and the buffer is larger than the last one, so the measured data are gone.
  const size_t words = bytes_ / 8;
  for (size_t i = 0; i < words; i += 8) buf_[i] = i;
  uint64_t sum = 0;
  for (size_t i = 0; i < words; i += 8) sum += buf_[i];
  buf_[0] = sum;
  if (pinned) ::sched_setaffinity(0, sizeof old, &old);
  ++evictions_;
}

int last_cpu_of(int tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  size_t paren = line.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return -1;
  std::istringstream fields(line.substr(paren + 2));
  std::string f;
  // Fields after the name start at 3 (state); the CPU is field 39.
  for (int i = 3; i <= 39; ++i)
    if (!(fields >> f)) return -1;
  try {
    return std::stoi(f);
  } catch (...) {
    return -1;
  }
}

}  // namespace roofprof
