#pragma once
// Number formatting for human output. Locale-independent, so golden files are stable.
#include <string>
#include <string_view>

namespace roofprof::report {

// Three significant digits: 3.14, 31.4, 314; larger values keep all integer digits (3142).
std::string sig3(double v);
// Seconds with a unit chosen to keep three significant digits: "5.31 ms", "532 ms", "1.23 s".
std::string format_seconds(double s);
// Decimal SI prefix: format_si(2e9, "B") = "2.00 GB", format_si(512, "B") = "512 B".
std::string format_si(double v, std::string_view unit);
// An event count rounded to an integer with thousands separators: "12,345".
std::string format_count(double v);
// Nanoseconds as milliseconds with two decimals and separators, as perf shows task-clock:
// "1,234.57".
std::string format_msec(double ns);

}  // namespace roofprof::report
