#pragma once
// Pass / warn / fail of a measured/expected ratio (docs/validation.md, "Thresholds").
#include <optional>
#include <string>

namespace roofprof::selftest {

enum class Verdict { None, Pass, Warn, Fail };  // None: nothing to judge (not measured, not expected)
const char* to_string(Verdict v);                // "-", "pass", "warn", "fail"
Verdict worst(Verdict a, Verdict b);

struct Thresholds {
  double target = 1;  // the ratio a correct measurement has
  double pass = 0;    // |ratio - target| <= pass: pass
  double warn = 0;    // <= warn: warn; beyond: fail
};

// W is exact where it is measured at all: 1% is rounding of a few stray instructions.
inline constexpr Thresholds kWork{1.0, 0.01, 0.20};
// Q of a cold call, or of any call beyond the LLC: the compulsory traffic plus a few lines
// (stack, unaligned ends); the seed paper measured up to 1.40 on hardware.
inline constexpr Thresholds kTraffic{1.0, 0.05, 0.40};
// Q of a warm call whose data fit in the LLC: nothing should come from DRAM.
inline constexpr Thresholds kTrafficWarmInLlc{0.0, 0.05, 0.40};

Verdict judge(std::optional<double> ratio, const Thresholds& t);

}  // namespace roofprof::selftest
