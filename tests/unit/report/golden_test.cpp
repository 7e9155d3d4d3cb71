#include "tests/unit/report/golden.hpp"

#include <gtest/gtest.h>

#include "report/export.hpp"
#include "report/summary.hpp"
#include "report/table.hpp"
#include "report/terminal_plot.hpp"
#include "tests/unit/report/model_helpers.hpp"
#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

using testing::fixture_run;
using testing::report_of;
using testing::with_ceilings;

std::string table_of(const result::Run& run, View view = {}) {
  ModelOptions o;
  o.view = view;
  return render_table(report_of(run, o)->model);
}
std::string summary_of(const result::Run& run) {
  return testing::capture([&](std::FILE* f) { print_summary(run, f); });
}

TEST(ReportGolden, TableTypical) {
  testing::expect_golden("table_typical.txt", table_of(samples::typical()));
}
TEST(ReportGolden, TableTypicalAtL1) {
  View v;
  v.level = "L1";
  testing::expect_golden("table_typical_L1.txt", table_of(samples::typical(), v));
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

// Several kernels against the roofs: bounds, fractions, memory- or compute-bound.
TEST(ReportGolden, TableKernelsWithRoofs) {
  auto r = report_of(fixture_run("kernels.json"), with_ceilings());
  testing::expect_golden("table_kernels_roofs.txt", render_table(r->model));
}
TEST(ReportGolden, PlotKernelsWithRoofs) {
  auto r = report_of(fixture_run("kernels.json"), with_ceilings());
  testing::expect_golden("plot_kernels_roofs.txt", render_terminal_plot(build_figure(r->model)));
}
TEST(ReportGolden, PlotKernelsReadOnlyAtL2) {
  View v;
  v.level = "L2";
  v.rw = Rw::read;
  auto r = report_of(fixture_run("kernels.json"), with_ceilings(v));
  testing::expect_golden("plot_kernels_read_L2.txt",
                         render_table(r->model) + "\n" +
                             render_terminal_plot(build_figure(r->model)));
}
TEST(ReportGolden, PlotHierarchical) {
  View v;
  v.hierarchical = true;
  auto r = report_of(fixture_run("kernels.json"), with_ceilings(v));
  testing::expect_golden("plot_kernels_hierarchical.txt",
                         render_terminal_plot(build_figure(r->model)));
}
TEST(ReportGolden, TableInCycles) {
  View v;
  v.units = Units::cycles;
  result::Run run = fixture_run("kernels.json");
  run.regions[5].counters["cycles"] = 5.0e9;  // dgemm_: a counted cycles counter
  auto r = report_of(run, with_ceilings(v));
  testing::expect_golden("table_kernels_cycles.txt", render_table(r->model));
}
// Series over sizes: groups with expected work, quartile bars, a --work override.
TEST(ReportGolden, TableAndPlotOfASeries) {
  ModelOptions o = with_ceilings();
  o.work.push_back(signatures::parse_work_option("dgemm_=2*m*n*k + m*n"));
  auto r = report_of(fixture_run("dgemm-openblas.json"), o);
  testing::expect_golden("series_dgemm.txt", render_table(r->model) + "\n" +
                                                 render_terminal_plot(build_figure(r->model)));
}
TEST(ReportGolden, CompareTwoImplementations) {
  auto r = report_of({{"openblas.json", fixture_run("dgemm-openblas.json")},
                      {"naive.json", fixture_run("dgemm-naive.json")}},
                     with_ceilings(), true);
  testing::expect_golden("compare_dgemm.txt", render_compare_table(r->model) + "\n" +
                                                  render_terminal_plot(build_figure(r->model)));
}
TEST(ReportGolden, MergedRuns) {
  auto r = report_of({{"run1.json", fixture_run("kernels.json")},
                      {"run2.json", fixture_run("kernels-run2.json")},
                      {"run3.json", fixture_run("kernels-run3.json")}},
                     with_ceilings());
  testing::expect_golden("merged_kernels.txt", render_table(r->model));
}
TEST(ReportGolden, CsvOfASeries) {
  auto r = report_of(fixture_run("dgemm-openblas.json"), with_ceilings());
  testing::expect_golden("series_dgemm.csv", render_csv(r->model));
}

}  // namespace
}  // namespace roofprof::report
