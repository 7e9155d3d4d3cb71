#pragma once
// The seed paper's Table IV for this machine: per kernel, size and cache state the
// measured/expected ratios of W, Q_r, Q_w and Q (median and max over runs), a verdict per
// line and overall; hardware/emulation ratios per flop class; what misbehaviour means for the
// user's profiles. Text for the terminal, JSON for --json (docs/result-schema.md).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "selftest/measure.hpp"
#include "selftest/verdict.hpp"

namespace roofprof::selftest {

struct Ratio {
  std::optional<double> median, max;
};

struct JudgedRow {
  Row row;
  double expected_work = 0;
  std::optional<double> expected_read, expected_write;  // null: not checked (fma)
  Ratio work, read, write, traffic;                      // measured / expected
  Verdict work_verdict = Verdict::None, traffic_verdict = Verdict::None, verdict = Verdict::None;
};

// Ratios and verdicts of one row (thresholds: verdict.hpp).
JudgedRow judge_row(const Row& row);

// Hardware / emulation W per flop class over the cases both measured.
struct ClassRatio {
  std::string flop_class;
  double hardware = 0, emulation = 0;
  std::optional<double> ratio;  // null when the emulation counted none
};
std::vector<ClassRatio> cross_check(const std::vector<Row>& hardware, const std::vector<Row>& emulation);

struct Report {
  std::string mode;  // "quick" | "full"
  uint64_t llc_bytes = 0;
  std::vector<std::string> backends;
  std::vector<JudgedRow> rows;
  std::vector<ClassRatio> classes;  // empty unless a hardware and the emulation backend ran
  std::vector<std::string> notes;   // plan notes and what the data says about the machine
  Verdict verdict = Verdict::None;
};

// Judges every row, cross-checks, derives the notes, and the overall verdict.
Report make_report(const std::string& mode, const Plan& plan, const std::vector<std::vector<Row>>& per_backend);

void print_report(const Report& report, std::FILE* out);
nlohmann::ordered_json report_json(const Report& report);

}  // namespace roofprof::selftest
