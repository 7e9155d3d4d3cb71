// Roofline quantities, roof selection and merging, checked against hand-computed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "report/measures.hpp"
#include "report/merge.hpp"
#include "report/roofs.hpp"
#include "tests/unit/report/model_helpers.hpp"
#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

using testing::fixture_ceilings;

result::Region kernel(double flops, double read, double write, double seconds, uint64_t calls) {
  result::Region r = samples::region("k", "function", calls, seconds);
  r.flops = flops;
  r.bytes = {{"DRAM", result::Bytes{read, write}}, {"L1", result::Bytes{4 * read, 4 * write}}};
  r.time_per_call_s = result::Stats{0.8, 0.9, 1.0, 1.25, 2.0};
  for (auto* v : {&r.time_per_call_s->min, &r.time_per_call_s->q1, &r.time_per_call_s->median,
                  &r.time_per_call_s->q3, &r.time_per_call_s->max})
    *v *= seconds / double(calls);
  return r;
}

Roofs roofs(View v = {}) {
  return select_roofs(fixture_ceilings()->ceilings, v, ceilings::Precision::dp);
}

TEST(Roofs, PicksTheBestMeasuredRoofsForTheTraffic) {
  Roofs r = roofs();
  EXPECT_EQ(r.threads, 2);
  EXPECT_NEAR(*r.pi, 80 * 0.94, 1e-9);  // avx2 fma dp, 2 threads
  // Read + write: the best kernel that both reads and writes (triad 0.85 x 8 x 1.4).
  EXPECT_NEAR(*r.beta, 8 * 1.4 * 0.85, 1e-9);
  EXPECT_EQ(r.perf_unit, "GFlop/s");
  int compute = 0, bandwidth = 0, theoretical = 0, primary = 0;
  for (const auto& roof : r.roofs) {
    (roof.compute ? compute : bandwidth)++;
    theoretical += roof.theoretical;
    primary += roof.primary;
  }
  EXPECT_EQ(compute, 5);    // avx2, sse, scalar at 2 threads; avx2 theoretical; avx2 1 thread
  EXPECT_EQ(bandwidth, 4);  // L1 .. DRAM (theoretical numbers exist only for load and store)
  EXPECT_EQ(theoretical, 1);
  EXPECT_EQ(primary, 2);    // the bound's compute and bandwidth roofs

  View read;
  read.rw = Rw::read;
  EXPECT_NEAR(*roofs(read).beta, 8 * 1.4, 1e-9);  // load kernel, all reads
  View write;
  write.rw = Rw::write;
  write.level = "L2";
  EXPECT_NEAR(*roofs(write).beta, 70 * 2 * 0.55, 1e-9);  // store kernel
}

TEST(Roofs, ThreadsAndCycles) {
  View one;
  one.threads = 1;
  EXPECT_NEAR(*roofs(one).pi, 40 * 0.94, 1e-9);
  View bad;
  bad.threads = 3;
  EXPECT_THROW(roofs(bad), UserError);
  View cycles;
  cycles.units = Units::cycles;
  Roofs c = roofs(cycles);
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.perf_unit, "flop/cycle");
  EXPECT_NEAR(*c.pi, 80 * 0.94 / (2.5 * 1.01), 1e-9);  // at the 2-thread clock's highest reading
}

// Without --threads the roofs are those of the threads the regions ran on (the most
// any region's per-thread parts show), the nearest measured count below it when that one was not
// measured, and the most measured when the results do not say; the origin line says which.
TEST(Roofs, OfTheThreadsTheRegionsRanOn) {
  const auto found = fixture_ceilings();
  const auto& c = found->ceilings;  // measured on 1 and 2 threads
  result::Run run;
  run.regions.push_back(kernel(1e9, 6e8, 4e8, 0.5, 10));
  const std::vector<const result::Run*> runs{&run};
  EXPECT_EQ(ran_with_threads(runs), std::nullopt);  // no per-thread parts
  Roofs unknown = select_roofs(c, View{}, ceilings::Precision::dp, ran_with_threads(runs));
  EXPECT_EQ(unknown.threads, 2);
  EXPECT_NE(unknown.origin.find("2 threads (the most measured: the results do not say how many threads ran)"),
            std::string::npos)
      << unknown.origin;

  run.regions[0].per_thread = {{1, 1, 10, 0.5, std::nullopt}, {1, 2, 0, std::nullopt, std::nullopt}};  // one with calls
  ASSERT_EQ(ran_with_threads(runs), 1);
  Roofs one = select_roofs(c, View{}, ceilings::Precision::dp, ran_with_threads(runs));
  EXPECT_EQ(one.threads, 1);
  EXPECT_NEAR(*one.pi, 40 * 0.94, 1e-9);  // avx2 fma dp, 1 thread
  EXPECT_NE(one.origin.find("1 thread (the threads the regions ran on)"), std::string::npos) << one.origin;

  Roofs four = select_roofs(c, View{}, ceilings::Precision::dp, 4);
  EXPECT_EQ(four.threads, 2);
  EXPECT_NE(four.origin.find("2 threads (the nearest measured to the 4 threads the regions ran on)"),
            std::string::npos)
      << four.origin;
  View asked;
  asked.threads = 2;  // --threads wins
  EXPECT_EQ(select_roofs(c, asked, ceilings::Precision::dp, 1).threads, 2);
}

TEST(Measures, IntensityPerformanceAndBound) {
  Roofs r = roofs();
  // W = 1e9 flops, Q = 1e9 B: I = 1, memory bound at 9.52 GFlop/s; T = 0.5 s: P = 2.
  result::Region k = kernel(1e9, 6e8, 4e8, 0.5, 10);
  Measures m = measure(Subject{&k, nullptr}, View{}, &r, std::nullopt);
  EXPECT_DOUBLE_EQ(*m.work, 1e9);
  EXPECT_DOUBLE_EQ(*m.traffic, 1e9);
  EXPECT_DOUBLE_EQ(*m.intensity, 1.0);
  EXPECT_DOUBLE_EQ(*m.gflops, 2.0);
  EXPECT_NEAR(*m.bound, 9.52, 1e-9);
  EXPECT_NEAR(*m.fraction, 2.0 / 9.52, 1e-12);
  EXPECT_EQ(m.bound_by, "memory");
  // The marker is at P = W/T; the bars at the calls' q3 and q1 (1e8 flops a call).
  EXPECT_DOUBLE_EQ(*m.y, 2.0);
  EXPECT_DOUBLE_EQ(*m.y_lo, 2.0 / 1.25);
  EXPECT_DOUBLE_EQ(*m.y_hi, 2.0 / 0.9);
  // Skewed calls (one slow call, the others fast): the marker stays at W/T, not at the median
  // call (0.02 s: 5 GFlop/s); the bars show the typical calls.
  k.time_per_call_s->q1 = 0.019;
  k.time_per_call_s->median = 0.02;
  k.time_per_call_s->q3 = 0.021;
  Measures skewed = measure(Subject{&k, nullptr}, View{}, &r, std::nullopt);
  EXPECT_DOUBLE_EQ(*skewed.y, 2.0);
  EXPECT_DOUBLE_EQ(*skewed.y, *skewed.gflops);
  EXPECT_NEAR(*skewed.y_lo, 0.1 / 0.021, 1e-9);
  EXPECT_NEAR(*skewed.y_hi, 0.1 / 0.019, 1e-9);
  // Compute bound at high intensity.
  result::Region dense = kernel(1e12, 1e9, 0, 20, 1);
  Measures d = measure(Subject{&dense, nullptr}, View{}, &r, std::nullopt);
  EXPECT_EQ(d.bound_by, "compute");
  EXPECT_NEAR(*d.bound, 75.2, 1e-9);
  EXPECT_FALSE(d.y_lo);  // one call: no per-call distribution
}

// One definition of P for table and plot. Every plotted marker is at its table row's P, whatever
// the spread of the calls (here every region's calls are skewed: median far below mean).
TEST(ReportModel, PlottedPointIsItsTableRow) {
  result::Run run = testing::fixture_run("kernels.json");
  for (auto& region : run.regions)
    if (region.time_per_call_s && region.calls > 1) {
      const double mean = *region.time_s / double(region.calls);
      region.time_per_call_s->q1 = 0.3 * mean;
      region.time_per_call_s->median = 0.4 * mean;
      region.time_per_call_s->q3 = 0.5 * mean;
    }
  auto report = testing::report_of(run, testing::with_ceilings());
  const Figure f = build_figure(report->model);
  size_t plotted = 0;
  for (const Row& row : report->model.rows) {
    if (!row.m.gflops || !row.m.intensity) continue;
    auto at = std::find_if(f.markers.begin(), f.markers.end(), [&](const Marker& mk) { return mk.x == *row.m.intensity; });
    ASSERT_NE(at, f.markers.end()) << row.subject.region->name << " " << row.subject.group_key();
    EXPECT_DOUBLE_EQ(at->y, *row.m.gflops) << row.subject.region->name << " " << row.subject.group_key();
    ++plotted;
  }
  EXPECT_GE(plotted, 5u);
}

TEST(Measures, UnknownStaysUnknown) {
  Roofs r = roofs();
  result::Region k = kernel(1e9, 6e8, 4e8, 0.5, 10);
  k.bytes["DRAM"].write.reset();
  Measures m = measure(Subject{&k, nullptr}, View{}, &r, std::nullopt);
  EXPECT_FALSE(m.traffic);
  EXPECT_FALSE(m.intensity);
  EXPECT_FALSE(m.bound);
  EXPECT_EQ(m.bound_by, "");
  EXPECT_DOUBLE_EQ(*m.gflops, 2.0);  // P needs no bytes
  View read;
  read.rw = Rw::read;
  Measures mr = measure(Subject{&k, nullptr}, read, &r, std::nullopt);
  EXPECT_DOUBLE_EQ(*mr.intensity, 1e9 / 6e8);
  k.flops.reset();
  Measures none = measure(Subject{&k, nullptr}, View{}, &r, std::nullopt);
  EXPECT_FALSE(none.gflops);
  EXPECT_FALSE(none.y);
  // Without roofs there is no bound.
  result::Region k2 = kernel(1e9, 6e8, 4e8, 0.5, 10);
  EXPECT_FALSE(measure(Subject{&k2, nullptr}, View{}, nullptr, std::nullopt).bound);
}

TEST(Measures, CyclesAreConvertedWithTheClockCountedCyclesApart) {
  View cycles;
  cycles.units = Units::cycles;
  result::Region k = kernel(1e9, 6e8, 4e8, 0.5, 10);
  Measures converted = measure(Subject{&k, nullptr}, cycles, nullptr, 2.5);
  EXPECT_TRUE(converted.y_converted);
  EXPECT_DOUBLE_EQ(*converted.y, 2.0 / 2.5);
  EXPECT_FALSE(converted.flops_per_cycle);
  k.counters["cycles"] = 4e8;
  Measures counted = measure(Subject{&k, nullptr}, cycles, nullptr, 2.5);
  EXPECT_DOUBLE_EQ(*counted.flops_per_cycle, 2.5);  // its own column
  EXPECT_DOUBLE_EQ(*counted.y, 2.0 / 2.5);          // the plot stays on the clock
  EXPECT_FALSE(measure(Subject{&k, nullptr}, cycles, nullptr, std::nullopt).y);
}

TEST(Merge, SumsAndUnknowns) {
  result::Run a = samples::typical(), b = samples::typical();
  b.regions[1].flops = 1e11;                  // dgemm_
  b.regions[1].bytes["DRAM"].write.reset();   // unknown in one file: unknown in the sum
  b.regions[1].counters["page-faults"] = 1;
  b.regions[0].counters.erase("page-faults");  // daxpy: absent in one file
  std::vector<Input> inputs{{"a.json", a}, {"b.json", b}};
  Merged m = merge(inputs);
  ASSERT_EQ(m.run.regions.size(), 3u);
  const auto& dgemm = m.run.regions[1];
  EXPECT_EQ(dgemm.name, "dgemm_");
  EXPECT_EQ(dgemm.calls, 200u);
  EXPECT_DOUBLE_EQ(*dgemm.time_s, 3.0);
  EXPECT_DOUBLE_EQ(*dgemm.flops, 3e11);
  EXPECT_DOUBLE_EQ(*dgemm.bytes.at("DRAM").read, 3.2e10);
  EXPECT_FALSE(dgemm.bytes.at("DRAM").write);
  EXPECT_EQ(dgemm.counters.at("page-faults"), 1234568.0);
  EXPECT_FALSE(dgemm.counters.at("context-switches"));  // null in both
  EXPECT_EQ(dgemm.closed_by.at("longjmp"), 4u);
  EXPECT_FALSE(m.run.regions[0].counters.at("page-faults"));
  EXPECT_EQ(m.run.repeat, 2);
  EXPECT_DOUBLE_EQ(*m.run.wall_time_s, 5.0);
  EXPECT_TRUE(m.approximate_stats.count("dgemm_"));
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("merged 2 result files (a.json, b.json)"), std::string::npos);
}

TEST(Merge, GroupsByKey) {
  result::Run a = testing::fixture_run("dgemm-openblas.json");
  result::Run b = a;
  b.regions[0].groups.erase(b.regions[0].groups.begin());  // n=100 only in a
  std::vector<Input> inputs{{"a", a}, {"b", b}};
  Merged m = merge(inputs);
  const auto& groups = m.run.regions[0].groups;
  ASSERT_EQ(groups.size(), 10u);
  EXPECT_EQ(groups[0].calls, 20u);
  EXPECT_EQ(groups[1].calls, 40u);
  EXPECT_DOUBLE_EQ(*groups[1].expected_work, 2 * *a.regions[0].groups[1].expected_work);
  EXPECT_FALSE(m.approximate_stats.count(subject_key("dgemm_", groups[0].key)));
  EXPECT_TRUE(m.approximate_stats.count(subject_key("dgemm_", groups[1].key)));
}

TEST(Model, IntensitySpreadOverMergedFiles) {
  auto r = testing::report_of({{"1", testing::fixture_run("kernels.json")},
                               {"2", testing::fixture_run("kernels-run2.json")},
                               {"3", testing::fixture_run("kernels-run3.json")}},
                              testing::with_ceilings());
  for (const auto& row : r->model.rows) {
    ASSERT_TRUE(row.x_lo && row.x_hi) << row.subject.region->name;
    EXPECT_LE(*row.x_lo, *row.x_hi);
    EXPECT_TRUE(row.approximate_stats);
  }
}

TEST(Model, WorkFormulasAndTheirErrors) {
  ModelOptions o;
  o.work.push_back(signatures::parse_work_option("dgemm_=m*n*k"));
  auto r = testing::report_of(testing::fixture_run("dgemm-openblas.json"), o);
  const Row& group = r->model.rows[1];
  ASSERT_TRUE(group.subject.group);
  const auto& p = group.subject.group->params;
  EXPECT_DOUBLE_EQ(*group.expected_work, 20 * p.at("m") * p.at("n") * p.at("k"));
  ModelOptions bad;
  bad.work.push_back(signatures::parse_work_option("dgemm_=2*m*n*q"));
  EXPECT_THROW(testing::report_of(testing::fixture_run("dgemm-openblas.json"), bad), UserError);
  ModelOptions unknown;
  unknown.work.push_back(signatures::parse_work_option("zgemm_=1"));
  EXPECT_THROW(testing::report_of(testing::fixture_run("dgemm-openblas.json"), unknown),
               UserError);
}

TEST(Model, BuiltInFormulaWhenTheResultHasNone) {
  result::Run run = testing::fixture_run("dgemm-openblas.json");
  for (auto& g : run.regions[0].groups) g.expected_work.reset();
  auto r = testing::report_of(run);
  const Row& group = r->model.rows[1];
  const auto& p = group.subject.group->params;
  EXPECT_DOUBLE_EQ(*group.expected_work, 20 * 2 * p.at("m") * p.at("n") * p.at("k"));
  EXPECT_NE(group.expected_from.find("built-in"), std::string::npos);
}

}  // namespace
}  // namespace roofprof::report
