#pragma once
#include <cstdint>

namespace roofprof {
// CLOCK_MONOTONIC in nanoseconds: the time base of every boundary event.
int64_t monotonic_ns();
}  // namespace roofprof
