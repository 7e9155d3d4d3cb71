#include "report/run_facts.hpp"

#include <gtest/gtest.h>

#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

TEST(RunFacts, CommandLineQuotesLikeAShell) {
  result::Run run;
  run.command = {"./app", "", "a b", "it's", "x=1,y:2"};
  EXPECT_EQ(command_line(run), "./app '' 'a b' 'it'\\''s' x=1,y:2");
  run.command.clear();
  EXPECT_EQ(command_line(run), "(unknown command)");
  run.pid = 7;
  EXPECT_EQ(command_line(run), "process 7");
}

TEST(RunFacts, HeadlineSaysWhichCachesTheEmulatedRunSimulated) {
  result::Run run;
  run.command = {"./app"};
  run.exit_status = 0;
  run.wall_time_s = 2.0;
  run.backend = "emul";
  run.scope = "process";
  EXPECT_EQ(run_headline(run), "./app: exited with status 0; wall 2.00 s; backend emul, scope process");
  run.simulated_caches = {{"L1", 48 << 10, 12, 64, std::nullopt},
                          {"L2", 1 << 20, 16, 64, true},
                          {"L3", 32 << 20, 16, 64, false}};
  EXPECT_EQ(run_headline(run), "./app: exited with status 0; wall 2.00 s; backend emul, scope process; "
                               "simulated caches L1 48K/12, L2 1M/16, L3 32M/16 non-inclusive");
  run.simulated_caches.back().inclusive = true;
  EXPECT_EQ(simulated_caches_text(run), "L1 48K/12, L2 1M/16, L3 32M/16 inclusive");
}

TEST(RunFacts, Outcome) {
  result::Run run;
  EXPECT_EQ(outcome(run), "exit status unknown");
  run.exit_status = 3;
  EXPECT_EQ(outcome(run), "exited with status 3");
  run.term_signal = 9;
  EXPECT_EQ(outcome(run), "killed by signal 9 (SIGKILL)");
  result::Run attached;
  attached.pid = 1;
  attached.complete = false;
  EXPECT_EQ(outcome(attached), "detached (still running)");
  attached.pid.reset();
  EXPECT_EQ(outcome(attached), "interrupted (exit status unknown)");
}

TEST(RunFacts, SourceOfFallsBackFromEventToCounters) {
  result::Region r;
  r.sources = {{"counters", "perf"}, {"counters.cycles", "emul"}, {"time", "clock"}};
  EXPECT_EQ(source_of(r, "counters.task-clock"), "perf");
  EXPECT_EQ(source_of(r, "counters.cycles"), "emul");
  EXPECT_EQ(source_of(r, "time"), "clock");
  EXPECT_EQ(source_of(r, "flops"), std::nullopt);
}

TEST(RunFacts, AbnormalCloses) {
  result::Region r;
  r.calls = 10;
  r.closed_by = {{"return", 7}, {"span_stop", 1}, {"thread_exit", 2}};
  EXPECT_EQ(abnormal_count(r), 2u);
  EXPECT_EQ(abnormal_closes(r), "2 of 10 instances closed abnormally: 2 thread_exit");
  r.closed_by = {{"return", 10}};
  EXPECT_EQ(abnormal_closes(r), "");
}

TEST(RunFacts, DerivedQuantitiesNeedKnownInputs) {
  result::Region r;
  r.time_s = 2;
  EXPECT_EQ(flops_per_second(r), std::nullopt);
  r.flops = 4e9;
  EXPECT_EQ(flops_per_second(r), 2e9);
  r.time_s = 0;
  EXPECT_EQ(flops_per_second(r), std::nullopt);

  EXPECT_EQ(total_bytes(r, "DRAM"), std::nullopt);
  r.bytes["DRAM"] = result::Bytes{1e9, std::nullopt};
  EXPECT_EQ(total_bytes(r, "DRAM"), std::nullopt);  // write unknown: the total is unknown
  r.bytes["DRAM"].write = 0.0;
  EXPECT_EQ(total_bytes(r, "DRAM"), 1e9);  // measured zero writes
}

}  // namespace
}  // namespace roofprof::report
