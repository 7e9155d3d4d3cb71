#include "selftest/verdict.hpp"

#include <cmath>

namespace roofprof::selftest {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::None: return "-";
    case Verdict::Pass: return "pass";
    case Verdict::Warn: return "warn";
    case Verdict::Fail: return "fail";
  }
  return "-";
}

Verdict worst(Verdict a, Verdict b) { return int(a) > int(b) ? a : b; }

Verdict judge(std::optional<double> ratio, const Thresholds& t) {
  if (!ratio) return Verdict::None;
  if (!std::isfinite(*ratio)) return Verdict::Fail;
  double dev = std::fabs(*ratio - t.target);
  if (dev <= t.pass + 1e-12) return Verdict::Pass;
  if (dev <= t.warn + 1e-12) return Verdict::Warn;
  return Verdict::Fail;
}

}  // namespace roofprof::selftest
