#include "tests/unit/report/golden.hpp"

#include <gtest/gtest.h>

#include "report/summary.hpp"
#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

std::string table_of(const result::Run& run, const TableOptions& options = {}) {
  return testing::capture([&](std::FILE* f) { print_table(run, f, options); });
}
std::string summary_of(const result::Run& run) {
  return testing::capture([&](std::FILE* f) { print_summary(run, f); });
}

TEST(ReportGolden, TableTypical) {
  testing::expect_golden("table_typical.txt", table_of(samples::typical()));
}
TEST(ReportGolden, TableTypicalAtL1) {
  testing::expect_golden("table_typical_L1.txt", table_of(samples::typical(), TableOptions{"L1"}));
}
TEST(ReportGolden, TableCrashed) {
  testing::expect_golden("table_crashed.txt", table_of(samples::crashed()));
}
TEST(ReportGolden, TableDetached) {
  testing::expect_golden("table_detached.txt", table_of(samples::detached()));
}
TEST(ReportGolden, SummaryTypical) {
  testing::expect_golden("summary_typical.txt", summary_of(samples::typical()));
}
TEST(ReportGolden, SummaryCrashed) {
  testing::expect_golden("summary_crashed.txt", summary_of(samples::crashed()));
}
TEST(ReportGolden, SummaryDetached) {
  testing::expect_golden("summary_detached.txt", summary_of(samples::detached()));
}

}  // namespace
}  // namespace roofprof::report
