// The emulated run's progress: the share of the native run's calls closed
// so far, its ETA, and the two forms of the line.
#include "emul/progress.hpp"

#include <gtest/gtest.h>

namespace roofprof::emul {
namespace {

Progress at(double elapsed, uint64_t done, std::optional<uint64_t> expected) {
  Progress p;
  p.elapsed_s = elapsed;
  p.instructions = 1'200'000'000;
  p.calls_done = done;
  p.calls_expected = expected;
  p.region = "dgemm_";
  return p;
}

TEST(EmulProgress, FractionAndEtaFromTheNativeRunsCalls) {
  EXPECT_DOUBLE_EQ(*fraction_done(at(30, 900, 2000)), 0.45);
  EXPECT_NEAR(*seconds_left(at(30, 900, 2000)), 30 * 0.55 / 0.45, 1e-9);
  // More calls than the native run made is not the end: 99% at most, until valgrind exits.
  EXPECT_DOUBLE_EQ(*fraction_done(at(30, 2500, 2000)), 0.99);
  // Unknown or empty total: no share, no ETA; too early (<1%): no ETA.
  EXPECT_FALSE(fraction_done(at(30, 5, std::nullopt)));
  EXPECT_FALSE(fraction_done(at(30, 5, 0)));
  EXPECT_FALSE(seconds_left(at(1, 1, 2000)));
}

TEST(EmulProgress, TerminalLineHasABarAndEta) {
  EXPECT_EQ(progress_line(at(30, 900, 2000), true),
            "roofprof: [#########...........] 45%  ETA 37 s  | 30 s, 1.20G instructions, in dgemm_");
  EXPECT_EQ(progress_line(at(30, 5, std::nullopt), true), "roofprof: emulating, 30 s, 1.20G instructions, in dgemm_");
  EXPECT_EQ(progress_line(at(600, 10, 2000), true),
            "roofprof: [....................] 0%  ETA ?  | 10 min, 1.20G instructions, in dgemm_");
}

TEST(EmulProgress, PlainLineForLogs) {
  EXPECT_EQ(progress_line(at(30, 900, 2000), false),
            "roofprof: emulating: 45% of the native run's 2000 calls after 30 s, 1.20G instructions, about 37 s left");
  EXPECT_EQ(progress_line(at(7200, 0, std::nullopt), false), "roofprof: emulating: after 2.0 h, 1.20G instructions");
}

}  // namespace
}  // namespace roofprof::emul
