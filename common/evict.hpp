#pragma once
// The cold-cache scenario (run --cache-state cold) from roofprof's own process: the tracer
// evicts, while the measured thread is stopped at a region's entry, by writing and then
// reading a buffer larger than the last-level cache on the CPU that thread last ran on.
// (The in-process agent does the same in C: preload/agent/evict.c.)
#include <cstddef>
#include <cstdint>

namespace roofprof {

class CacheEvictor {
 public:
  explicit CacheEvictor(size_t bytes);  // UserError when the buffer cannot be mapped
  ~CacheEvictor();
  CacheEvictor(const CacheEvictor&) = delete;
  CacheEvictor& operator=(const CacheEvictor&) = delete;

  // Pins the calling thread to `cpu` (when >= 0) for the eviction, then restores its affinity.
  void evict(int cpu);
  uint64_t evictions() const { return evictions_; }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_;
  volatile uint64_t* buf_;
  uint64_t evictions_ = 0;
};

// The CPU thread `tid` last ran on (field 39 of /proc/TID/stat); -1 when unknown.
int last_cpu_of(int tid);

}  // namespace roofprof
