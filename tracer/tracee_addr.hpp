#pragma once
// An address in the tracee's address space. Distinct from local pointers so the two cannot
// be mixed up; arithmetic is explicit.
#include <compare>
#include <cstdint>
#include <functional>

namespace roofprof::tracer {

class TraceeAddr {
 public:
  constexpr TraceeAddr() = default;
  constexpr explicit TraceeAddr(uint64_t v) : v_(v) {}
  constexpr uint64_t value() const { return v_; }
  constexpr TraceeAddr operator+(int64_t d) const { return TraceeAddr(v_ + uint64_t(d)); }
  constexpr TraceeAddr operator-(int64_t d) const { return TraceeAddr(v_ - uint64_t(d)); }
  constexpr int64_t operator-(TraceeAddr o) const { return int64_t(v_ - o.v_); }
  constexpr auto operator<=>(const TraceeAddr&) const = default;
  constexpr explicit operator bool() const { return v_ != 0; }

 private:
  uint64_t v_ = 0;
};

}  // namespace roofprof::tracer

template <>
struct std::hash<roofprof::tracer::TraceeAddr> {
  size_t operator()(const roofprof::tracer::TraceeAddr& a) const noexcept { return std::hash<uint64_t>{}(a.value()); }
};
