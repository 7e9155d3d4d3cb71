#include "cli/number_option.hpp"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <string>

namespace roofprof::cli {
namespace {

// "" when `text` is a finite number in [min, max]; else what is wrong with it.
std::string check(const std::string& text, double min, double max, const std::string& bounds) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
  if (end == begin || *end != '\0' || !std::isfinite(v))
    return fmt::format("must be a finite number, {}, not '{}'", bounds, shown);
  if (v < min || v > max) return fmt::format("must be {}, not {}", bounds, shown);
  return "";
}

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

CLI::Validator at_least(double min) {
  const std::string bounds = "at least " + number_text(min);
  return CLI::Validator(
      [min, bounds](std::string& text) { return check(text, min, std::numeric_limits<double>::max(), bounds); },
      "NUMBER>=" + number_text(min));
}

CLI::Validator between(double min, double max) {
  const std::string bounds = "from " + number_text(min) + " to " + number_text(max);
  return CLI::Validator([min, max, bounds](std::string& text) { return check(text, min, max, bounds); },
                        "NUMBER in [" + number_text(min) + ", " + number_text(max) + "]");
}

}  // namespace roofprof::cli
