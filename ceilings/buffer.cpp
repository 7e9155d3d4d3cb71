#include "ceilings/buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace roofprof::ceilings {
namespace {
constexpr size_t kHuge = size_t(2) << 20;
}

Buffer::Buffer(size_t bytes) : size_(bytes) {
  map_size_ = bytes + kHuge;
  map_ = mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw UserError("cannot map " + std::to_string(bytes >> 20) +
                    " MiB for a working set (out of memory?)");
  }
  const uintptr_t p = (uintptr_t(map_) + kHuge - 1) & ~uintptr_t(kHuge - 1);
  data_ = reinterpret_cast<void*>(p);
  if (bytes >= kHuge) madvise(data_, (bytes + kHuge - 1) & ~(kHuge - 1), MADV_HUGEPAGE);
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept
    : map_(std::exchange(o.map_, nullptr)),
      map_size_(o.map_size_),
      data_(std::exchange(o.data_, nullptr)),
      size_(o.size_) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    map_ = std::exchange(o.map_, nullptr);
    map_size_ = o.map_size_;
    data_ = std::exchange(o.data_, nullptr);
    size_ = o.size_;
  }
  return *this;
}

void Buffer::release() {
  if (map_) munmap(map_, map_size_);
  map_ = nullptr;
  data_ = nullptr;
}

}  // namespace roofprof::ceilings
