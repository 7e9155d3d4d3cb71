#include "emul/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofprof::emul {
namespace {

std::string instructions_text(uint64_t v) {
  if (v >= 1000000000ull) return fmt::format("{:.2f}G", double(v) / 1e9);
  if (v >= 1000000ull) return fmt::format("{:.1f}M", double(v) / 1e6);
  return fmt::format("{}", v);
}

std::string duration_text(double s) {
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 5400) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

std::optional<double> fraction_done(const Progress& p) {
  if (!p.calls_expected || *p.calls_expected == 0) return std::nullopt;
  return std::min(0.99, double(p.calls_done) / double(*p.calls_expected));
}

std::optional<double> seconds_left(const Progress& p) {
  auto f = fraction_done(p);
  if (!f || *f < 0.01) return std::nullopt;
  return p.elapsed_s * (1 - *f) / *f;
}

std::string progress_line(const Progress& p, bool terminal) {
  const auto f = fraction_done(p);
  const auto left = seconds_left(p);
  const std::string where = p.region.empty() ? "" : ", in " + p.region;
  if (!terminal) {
    std::string line = "roofprof: emulating: ";
    if (f)
      line += fmt::format("{:.0f}% of the native run's {} calls after {}", std::floor(*f * 100), *p.calls_expected,
                          duration_text(p.elapsed_s));
    else
      line += "after " + duration_text(p.elapsed_s);
    line += fmt::format(", {} instructions", instructions_text(p.instructions));
    if (left) line += ", about " + duration_text(*left) + " left";
    return line;
  }
  std::string line = "roofprof: ";
  if (f) {
    constexpr int kWidth = 20;
    const int filled = int(*f * kWidth);
    line += "[" + std::string(size_t(filled), '#') + std::string(size_t(kWidth - filled), '.') + "] " +
            fmt::format("{:.0f}%", std::floor(*f * 100));
    line += left ? "  ETA " + duration_text(*left) : "  ETA ?";
    line += "  | ";
  } else {
    line += "emulating, ";
  }
  line += fmt::format("{}, {} instructions{}", duration_text(p.elapsed_s), instructions_text(p.instructions), where);
  return line;
}

}  // namespace roofprof::emul
