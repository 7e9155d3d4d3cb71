#pragma once
// Page-backed working-set memory: 2 MiB aligned, transparent huge pages requested for large
// buffers (fewer TLB misses in the DRAM sweep and pointer chase). Touched by whoever writes it
// first, so a thread that fills its own buffer gets local memory.
#include <cstddef>

namespace roofprof::ceilings {

class Buffer {
 public:
  explicit Buffer(size_t bytes);  // throws UserError if the memory cannot be mapped
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void release();
  void* map_ = nullptr;
  size_t map_size_ = 0;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace roofprof::ceilings
