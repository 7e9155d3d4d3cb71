#include "report/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace roofprof::report {
namespace {

// "1234567" -> "1,234,567" (digits only).
std::string group_thousands(const std::string& digits) {
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string sig3(double v) {
  double a = std::fabs(v);
  int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
  if (a == 0) decimals = 0;
  return fmt::format("{:.{}f}", v, decimals);
}

std::string format_seconds(double s) {
  double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a >= 0.9995) return sig3(s) + " s";
  if (a >= 0.9995e-3) return sig3(s * 1e3) + " ms";
  if (a >= 0.9995e-6) return sig3(s * 1e6) + " us";
  return sig3(s * 1e9) + " ns";
}

std::string format_si(double v, std::string_view unit) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  double a = std::fabs(v);
  auto with_unit = [](std::string number, std::string suffix) {
    return suffix.empty() ? number : number + " " + suffix;
  };
  if (a < 999.5 && v == std::round(v))
    return with_unit(fmt::format("{:.0f}", v), std::string(unit));
  size_t p = 0;
  while (a >= 999.5 && p + 1 < std::size(kPrefixes)) {
    a /= 1000;
    v /= 1000;
    ++p;
  }
  return with_unit(sig3(v), kPrefixes[p] + std::string(unit));
}

std::string format_count(double v) {
  double r = std::round(v);
  std::string digits = fmt::format("{:.0f}", std::fabs(r));
  return (r < 0 ? "-" : "") + group_thousands(digits);
}

std::string format_msec(double ns) {
  double ms = std::round(ns / 1e4) / 100;  // two decimals
  std::string s = fmt::format("{:.2f}", std::fabs(ms));
  size_t dot = s.find('.');
  return (ms < 0 ? "-" : "") + group_thousands(s.substr(0, dot)) + s.substr(dot);
}

}  // namespace roofprof::report
