// A timed and an emulated job of one MPI command combined rank by rank (report/pair.hpp): T,
// calls and counters from the timed job, W and Q from the emulated one; anything else is left
// to the ordinary merge.
#include "report/pair.hpp"

#include <gtest/gtest.h>

#include "report/job.hpp"
#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

// Rank r of a 2-rank job: r+1 calls of 'work'. Timed: (r+1) x 0.5 s, no W. Emulated: no T,
// 2e6 flops and 1 MB of DRAM traffic per call.
result::Run rank_run(int rank, bool emulated, std::optional<std::string> id,
                     std::vector<std::string> command = {"./mpi_app"}, std::string launcher = "openmpi") {
  result::Run run;
  run.command = std::move(command);
  run.backend = emulated ? "emul" : "time";
  run.scope = "process";
  run.job = result::Job{std::move(launcher), rank, 2, std::move(id)};
  result::Region r = samples::region("work", "function", uint64_t(rank + 1), 0.5 * (rank + 1));
  if (emulated) {
    run.wall_time_s.reset();
    r.time_s.reset();
    r.sources = {{"flops", "emul"}, {"bytes", "emul"}};
    r.flops = 2e6 * (rank + 1);
    r.flops_by_class = {{"dp_256", 2e6 * (rank + 1)}};
    r.bytes = {{"DRAM", result::Bytes{1e6 * (rank + 1), 0.0}}};
  } else {
    run.wall_time_s = 1.0 + rank;
    r.counters = {{"task-clock", 0.5e9 * (rank + 1)}};
  }
  run.regions.push_back(r);
  return run;
}

std::vector<Input> two_jobs() {
  return {{"e1", rank_run(1, true, "9")}, {"t0", rank_run(0, false, "8")}, {"e0", rank_run(0, true, "9")},
          {"t1", rank_run(1, false, "8")}};
}

TEST(PairJobs, EachRankTakesTheTimedTAndTheEmulatedW) {
  auto p = pair_timed_and_emulated(two_jobs());
  ASSERT_TRUE(p);
  ASSERT_EQ(p->ranks.size(), 2u);
  for (int rank = 0; rank < 2; ++rank) {
    const result::Run& r = p->ranks[size_t(rank)].run;
    EXPECT_EQ(r.job->rank, rank);
    EXPECT_EQ(r.job->id, "8");  // the timed job's
    const result::Region& w = r.regions.at(0);
    EXPECT_EQ(w.calls, uint64_t(rank + 1));
    EXPECT_EQ(w.time_s, 0.5 * (rank + 1));
    EXPECT_EQ(w.counters.at("task-clock"), 0.5e9 * (rank + 1));
    EXPECT_EQ(w.flops, 2e6 * (rank + 1));
    EXPECT_EQ(w.flops_by_class.at("dp_256"), 2e6 * (rank + 1));
    EXPECT_EQ(w.bytes.at("DRAM").read, 1e6 * (rank + 1));
    EXPECT_EQ(w.sources.at("time"), "clock");
    EXPECT_EQ(w.sources.at("flops"), "emul");
  }
  ASSERT_EQ(p->notes.size(), 1u);
  EXPECT_NE(p->notes[0].find("T, calls and counters from the time job 8, W and Q from the emulated job 9"),
            std::string::npos)
      << p->notes[0];
  // The combined ranks are one job: T of the slowest rank, W summed.
  Merged m = merge(p->ranks);
  ASSERT_TRUE(m.job);
  EXPECT_EQ(m.run.regions.at(0).time_s, 1.0);
  EXPECT_EQ(m.run.regions.at(0).flops, 6e6);
}

// MPICH's Hydra gives no job id: the note says so rather than "job ?".
TEST(PairJobs, JobsWithoutAnIdAreNotCalledJobQuestionMark) {
  const std::vector<std::string> cmd{"./mpi_app"};
  std::vector<Input> in = {{"t0", rank_run(0, false, std::nullopt, cmd, "mpich")},
                           {"t1", rank_run(1, false, std::nullopt, cmd, "mpich")},
                           {"e0", rank_run(0, true, std::nullopt, cmd, "mpich")},
                           {"e1", rank_run(1, true, std::nullopt, cmd, "mpich")}};
  auto p = pair_timed_and_emulated(in);
  ASSERT_TRUE(p);
  EXPECT_NE(p->notes.at(0).find("from the time job (mpich gives no job id), W and Q from the emulated job (mpich "
                                "gives no job id)"),
            std::string::npos)
      << p->notes[0];
  EXPECT_EQ(p->notes[0].find('?'), std::string::npos) << p->notes[0];
}

TEST(PairJobs, CallsThatDifferAreSaid) {
  auto inputs = two_jobs();
  inputs[0].run.regions[0].calls = 7;  // emulated rank 1
  auto p = pair_timed_and_emulated(inputs);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->notes.size(), 2u);
  EXPECT_EQ(p->notes[1], "work rank 1: 2 calls timed, 7 emulated; its W and Q are the emulated calls'");
}

TEST(PairJobs, OnlyTwoWholeJobsOfOneCommandPair) {
  auto missing = two_jobs();
  missing.erase(missing.begin());  // emulated rank 1 absent
  EXPECT_FALSE(pair_timed_and_emulated(missing));
  auto other = two_jobs();
  other[0].run = rank_run(1, true, "9", {"./other_app"});
  other[2].run = rank_run(0, true, "9", {"./other_app"});
  EXPECT_FALSE(pair_timed_and_emulated(other));
  std::vector<Input> timed_only{{"t0", rank_run(0, false, "8")}, {"t1", rank_run(1, false, "8")}};
  EXPECT_FALSE(pair_timed_and_emulated(timed_only));
  auto both_timed = two_jobs();
  both_timed[0].run.wall_time_s = 2.0;  // an emulated run with a native pass is not emulated-only
  EXPECT_FALSE(pair_timed_and_emulated(both_timed));
}

}  // namespace
}  // namespace roofprof::report
