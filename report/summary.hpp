#pragma once
#include <cstdio>

#include "result/result.hpp"

namespace roofprof::report {
// The short perf-stat-like summary printed to stderr after a run.
void print_summary(const result::Run& run, std::FILE* out);
// The per-region table of `roofprof report`.
void print_table(const result::Run& run, std::FILE* out);
}  // namespace roofprof::report
