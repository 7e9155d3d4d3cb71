#include "native/ranges.hpp"

#include <cstdio>

namespace roofprof::native {

const uint8_t* find_bytes(std::span<const CodeRange> ranges, uint64_t at, uint64_t size) {
  for (const CodeRange& r : ranges)
    if (at >= r.address && size <= r.bytes.size() && at - r.address <= r.bytes.size() - size)  // no overflow
      return r.bytes.data() + (at - r.address);
  return nullptr;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace roofprof::native
