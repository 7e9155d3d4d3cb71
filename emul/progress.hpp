#pragma once
// What the emulated run says while it runs (docs/emulation.md). The native run of the two-run
// method counted the region calls; the emulated run closes the same calls, so the share closed
// so far is its progress and gives an ETA. On a terminal: one line redrawn with a bar; otherwise
// a plain line now and then (emul::run decides when).
#include <cstdint>
#include <optional>
#include <string>

namespace roofprof::emul {

struct Progress {
  double elapsed_s = 0;
  uint64_t instructions = 0;
  uint64_t calls_done = 0;                // region instances closed so far
  std::optional<uint64_t> calls_expected;  // the native run's count; null: unknown (no bar, no ETA)
  std::string region;                      // the region being emulated now, "" when none
};

// The share done, in [0, 0.99] until the run ends (more calls than the native run made is not
// the end); null when the total is unknown or zero.
std::optional<double> fraction_done(const Progress& p);

// Seconds left at the rate so far; null before 1% or when the fraction is unknown.
std::optional<double> seconds_left(const Progress& p);

// "[#########...........] 45%  ETA 12 s  | 30 s, 1.20G instructions, in dgemm_" (terminal),
// "roofprof: emulating: 45% of the native run's 2,000 calls after 30 s, about 12 s left" (plain).
std::string progress_line(const Progress& p, bool terminal);

}  // namespace roofprof::emul
