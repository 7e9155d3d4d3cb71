#pragma once
#include <cstdio>
#include <string>

#include "result/result.hpp"

namespace roofprof::report {

// The short perf-stat-like summary printed to stderr after a run.
void print_summary(const result::Run& run, std::FILE* out);

struct TableOptions {
  std::string level = "DRAM";  // memory level of the bytes and intensity columns
};
// The per-region table of `roofprof report`.
void print_table(const result::Run& run, std::FILE* out, const TableOptions& options = {});

}  // namespace roofprof::report
