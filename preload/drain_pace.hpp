#pragma once
// When roofprof drains the agent's rings while the program runs (every mode with the agent):
// at once while the last drain found records (the ring may be full and the program waiting for
// a slot); otherwise after 2 ms while the program is quiet, and after 50 us while records came
// in the last 10 ms. A program calling fast fills a ring of 65,536 records in about 2 ms here,
// so a 2 ms sleep after catching up would leave it waiting for slots.
#include <cstddef>
#include <cstdint>

namespace roofprof::preload {

class DrainPace {
 public:
  static constexpr int64_t kQuietNs = 2'000'000, kBusyNs = 50'000, kBusyWindowNs = 10'000'000;

  // The drain made at `now_ns` replayed `records`.
  void drained(size_t records, int64_t now_ns) {
    last_drain_ns_ = now_ns;
    if (records) last_records_ns_ = now_ns;
    busy_ = records > 0;
  }
  // The time to wait, from `now_ns`, before the next drain (0: drain now).
  int64_t wait_ns(int64_t now_ns) const {
    if (busy_) return 0;
    int64_t interval = now_ns - last_records_ns_ < kBusyWindowNs ? kBusyNs : kQuietNs;
    int64_t left = last_drain_ns_ + interval - now_ns;
    return left > 0 ? left : 0;
  }

 private:
  int64_t last_drain_ns_ = INT64_MIN / 2;
  int64_t last_records_ns_ = INT64_MIN / 2;
  bool busy_ = false;
};

}  // namespace roofprof::preload
