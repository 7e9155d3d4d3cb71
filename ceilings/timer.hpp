#pragma once
// Serialised interval timer: rdtscp + lfence on an invariant TSC, clock_gettime otherwise.
// start() waits for earlier instructions and keeps later ones from starting early; stop()
// waits for the timed instructions to finish. The cost of one start/stop pair is measured.
#include <x86intrin.h>

#include <cstdint>
#include <ctime>
#include <string>

namespace roofprof::ceilings {

class Timer {
 public:
  // Calibrates the TSC against CLOCK_MONOTONIC_RAW (about 30 ms) and measures the overhead.
  static Timer calibrate();

  uint64_t start() const {
    if (!tsc_) return clock_ns();
    unsigned aux;
    _mm_lfence();
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
  }
  uint64_t stop() const {
    if (!tsc_) return clock_ns();
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
  }
  double seconds(uint64_t ticks) const { return double(ticks) / (ticks_per_ns_ * 1e9); }

  const char* name() const { return tsc_ ? "rdtscp+lfence" : "clock_gettime"; }
  double ticks_per_ns() const { return ticks_per_ns_; }
  double overhead_ns() const { return overhead_ns_; }

 private:
  static uint64_t clock_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  }
  bool tsc_ = false;
  double ticks_per_ns_ = 1;
  double overhead_ns_ = 0;
};

}  // namespace roofprof::ceilings
