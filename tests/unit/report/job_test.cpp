// The rank files of one MPI job: recognised, summed (W, Q, calls) or maxed (time), the spread
// over the ranks, and the job's table; files that are not one job keep the run merge.
#include <gtest/gtest.h>

#include "report/job.hpp"
#include "report/merge.hpp"
#include "report/table.hpp"
#include "tests/unit/report/model_helpers.hpp"
#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

// Rank r of a 4-rank job: r+1 calls of 'work' taking (r+1) x 0.5 s, 2e6 flops per call.
result::Run rank_run(int rank, int size = 4, std::optional<std::string> id = "77") {
  result::Run run;
  run.command = {"./mpi_app"};
  run.backend = "emul";
  run.scope = "process";
  run.wall_time_s = 1.0 + rank;
  run.host.hostname = rank < 2 ? "node1" : "node2";
  run.job = result::Job{"openmpi", rank, size, std::move(id)};
  result::Region r = samples::region("work", "function", uint64_t(rank + 1), 0.5 * (rank + 1));
  r.flops = 2e6 * (rank + 1);
  r.bytes = {{"DRAM", result::Bytes{1e6 * (rank + 1), 5e5 * (rank + 1)}}};
  r.time_per_call_s = result::Stats{0.5, 0.5, 0.5, 0.5, 0.5};
  run.regions.push_back(r);
  return run;
}

std::vector<Input> job_inputs(int ranks = 4) {
  std::vector<Input> inputs;
  for (int r = ranks - 1; r >= 0; --r)  // any order
    inputs.push_back({"prof." + std::to_string(r) + ".json", rank_run(r)});
  return inputs;
}

TEST(Job, SumsWorkAndCallsTakesTheSlowestRanksTime) {
  auto inputs = job_inputs();
  Merged m = merge(inputs);
  ASSERT_TRUE(m.job);
  EXPECT_EQ(m.job->ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(m.job->missing.empty());
  EXPECT_EQ(m.job->hosts, (std::vector<std::string>{"node1", "node2"}));
  const auto& work = m.run.regions.at(0);
  EXPECT_EQ(work.calls, 10u);
  EXPECT_DOUBLE_EQ(*work.flops, 2e7);
  EXPECT_DOUBLE_EQ(*work.bytes.at("DRAM").read, 1e7);
  EXPECT_DOUBLE_EQ(*work.time_s, 2.0);      // rank 3's, not the sum 5.0
  EXPECT_DOUBLE_EQ(*m.run.wall_time_s, 4.0);  // the longest rank
  EXPECT_EQ(m.run.repeat, 1);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("MPI job 77 (openmpi): 4 of 4 ranks on 2 hosts"), std::string::npos)
      << m.notes[0];
}

TEST(Job, SpreadAndImbalanceOverTheRanks) {
  auto inputs = job_inputs();
  Merged m = merge(inputs);
  ASSERT_TRUE(m.job);
  ASSERT_EQ(m.job->spread.size(), 1u);
  const RankSpread& s = m.job->spread[0];
  EXPECT_DOUBLE_EQ(s.calls.min, 1);
  EXPECT_DOUBLE_EQ(s.calls.median, 2.5);
  EXPECT_DOUBLE_EQ(s.calls.max, 4);
  EXPECT_DOUBLE_EQ(*s.calls.imbalance(), 4 / 2.5);
  ASSERT_TRUE(s.time_s);
  EXPECT_DOUBLE_EQ(s.time_s->max, 2.0);
  EXPECT_DOUBLE_EQ(*s.time_s->imbalance(), 2.0 / 1.25);
  ASSERT_TRUE(s.flops);
  EXPECT_DOUBLE_EQ(s.flops->min, 2e6);
  EXPECT_DOUBLE_EQ(*s.flops->imbalance(), 1.6);
}

TEST(Job, UnknownFlopsInOneRankMakeTheFlopsSpreadUnknown) {
  auto inputs = job_inputs();
  inputs[1].run.regions[0].flops.reset();
  Merged m = merge(inputs);
  ASSERT_TRUE(m.job);
  EXPECT_FALSE(m.job->spread[0].flops);
  EXPECT_FALSE(m.run.regions[0].flops);  // and the sum, as for runs
}

TEST(Job, MissingRanksAreNamed) {
  auto inputs = job_inputs();
  inputs.erase(inputs.begin());  // rank 3
  Merged m = merge(inputs);
  ASSERT_TRUE(m.job);
  EXPECT_EQ(m.job->missing, (std::vector<int>{3}));
  EXPECT_EQ(m.run.regions[0].calls, 6u);
  bool named = false;
  for (const auto& n : m.notes) named = named || n.find("without a result file: 3") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(Job, NotOneJobIsMergedAsRuns) {
  for (int variant = 0; variant < 4; ++variant) {
    auto inputs = job_inputs(2);
    if (variant == 0) inputs[1].run.job->id = "78";           // another job
    if (variant == 1) inputs[1].run.job->rank = 1;            // a rank twice
    if (variant == 2) inputs[1].run.job.reset();              // a file from outside a job
    if (variant == 3) inputs[1].run.command = {"./other"};    // another program
    Merged m = merge(inputs);
    EXPECT_FALSE(m.job) << variant;
    EXPECT_DOUBLE_EQ(*m.run.regions[0].time_s, 1.5) << variant;  // summed, as runs
    EXPECT_NE(m.notes.back().find("not the ranks of one MPI job"), std::string::npos) << variant;
  }
}

TEST(Job, TableSaysWhatIsSummedAndShowsTheSpread) {
  auto r = testing::report_of(job_inputs());
  const std::string text = render_table(r->model);
  EXPECT_NE(text.find("MPI job 77, 4 ranks merged"), std::string::npos) << text;
  EXPECT_NE(text.find("calls(sum)"), std::string::npos) << text;
  EXPECT_NE(text.find("total(max rank)"), std::string::npos) << text;
  EXPECT_NE(text.find("per-rank spread (load imbalance = max/mean over the ranks)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("a region's time is the slowest rank's (max)"), std::string::npos) << text;
  ASSERT_EQ(r->model.rows.size(), 1u);
  EXPECT_TRUE(r->model.rank_rows.empty());  // only with --per-rank
}

TEST(Job, PerRankRowsAreEachRanksOwn) {
  ModelOptions o;
  o.per_rank = true;
  auto r = testing::report_of(job_inputs(), o);
  ASSERT_EQ(r->model.rank_rows.size(), 4u);
  EXPECT_EQ(r->model.rank_rows[3].rank, 3);
  EXPECT_DOUBLE_EQ(*r->model.rank_rows[3].m.gflops, 8e6 / 2.0 / 1e9);
  EXPECT_DOUBLE_EQ(*r->model.rows[0].m.gflops, 2e7 / 2.0 / 1e9);  // the job: W sum / T max
  Figure f = build_figure(r->model);
  int rank_markers = 0;
  for (const auto& mk : f.markers) rank_markers += mk.sub_label.rfind("r", 0) == 0;
  EXPECT_EQ(rank_markers, 4);
  EXPECT_EQ(f.markers.size(), 5u);
}

}  // namespace
}  // namespace roofprof::report
