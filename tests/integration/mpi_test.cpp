// MPI jobs: Open MPI's mpirun starts roofprof on each rank (the tracer, or the in-process agent
// with --no-ptrace); each rank writes its own result, and `roofprof report` merges the ranks
// into the job's table with the spread over the ranks. The fixture's imbalance is by design:
// rank r calls mpi_work(N) r+1 times (2N flops per call).
#include <algorithm>

#include "harness.hpp"

namespace it {
namespace {

constexpr int kRanks = 4;

// mpirun as root in a VM: no ssh, no network probing, shared memory between the ranks.
std::vector<std::string> mpirun(const std::vector<std::string>& per_rank, int ranks = kRanks) {
  std::vector<std::string> argv{MPIEXEC, "--oversubscribe", "--allow-run-as-root",
                                "--mca", "btl", "self,vader", "--mca", "plm_rsh_agent", "",
                                "-np", std::to_string(ranks), roofprof_bin()};
  argv.insert(argv.end(), per_rank.begin(), per_rank.end());
  return argv;
}

// The ranks' result files; fails the test when one is missing.
std::vector<json> rank_results(Sandbox& sb, const RunResult& r, const std::string& pattern) {
  std::vector<json> out;
  for (int rank = 0; rank < kRanks; ++rank) {
    std::string name = pattern;
    name.replace(name.find("%r"), 2, std::to_string(rank));
    EXPECT_TRUE(fs::exists(sb.path(name))) << name << r.diag();
    out.push_back(fs::exists(sb.path(name)) ? load_result(r, name) : json());
  }
  return out;
}

void expect_rank_fields(const std::vector<json>& results) {
  for (int rank = 0; rank < kRanks; ++rank) {
    const json& res = results[size_t(rank)];
    ASSERT_TRUE(res.contains("job")) << res.dump().substr(0, 2000);
    EXPECT_EQ(res["job"]["launcher"], "openmpi");
    EXPECT_EQ(res["job"]["rank"], rank);
    EXPECT_EQ(res["job"]["size"], kRanks);
    EXPECT_TRUE(res["job"]["id"].is_string());
    EXPECT_EQ(res["job"]["id"], results[0]["job"]["id"]);  // one job
    EXPECT_FALSE(res["host"]["hostname"].get<std::string>().empty());
    EXPECT_EQ(calls(region(res, "mpi_work")), rank + 1);
  }
}

// `roofprof report` over the rank files: the job's row (report --json) and the table.
struct JobReport {
  json row;     // mpi_work's row
  json spread;  // mpi_work's spread over the ranks
  std::string table;
};

JobReport report_job(Sandbox& sb, const std::string& pattern) {
  std::vector<std::string> files;
  for (int rank = 0; rank < kRanks; ++rank) {
    std::string name = pattern;
    files.push_back(name.replace(name.find("%r"), 2, std::to_string(rank)));
  }
  std::vector<std::string> args{"report", "--no-plot"};
  args.insert(args.end(), files.begin(), files.end());
  auto text = sb.roofprof(args);
  EXPECT_EQ(text.exit_code(), 0) << text.diag();
  args.push_back("--json");
  args.push_back("-");
  auto j = sb.roofprof(args);
  EXPECT_EQ(j.exit_code(), 0) << j.diag();
  JobReport out{json(), json(), text.out};
  try {
    json doc = json::parse(j.out);
    for (const auto& row : doc["rows"])
      if (row["region"] == "mpi_work" && row["group"].is_null()) out.row = row;
    EXPECT_TRUE(doc.contains("job")) << "not reported as one job:\n" << text.out;
    if (doc.contains("job")) {
      EXPECT_EQ(doc["job"]["ranks"], json({0, 1, 2, 3}));
      for (const auto& s : doc["job"]["spread"])
        if (s["region"] == "mpi_work") out.spread = s;
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "report --json: " << e.what() << j.diag();
  }
  return out;
}

TEST(Mpi, TracerOnEachRankAndTheJobReport) {
  Sandbox sb;
  // --no-preload: breakpoints only (the default combined mode would hook mpi_work's PLT calls).
  auto r = sb.run(mpirun({"run", "--no-preload", "--backend", "time", "-q", "-o", "prof.%r.json",
                          "--region", "mpi_work", "--", fixture("mpi_app"), "4000000"}),
                  {.env = {}, .stdin_text = {}, .timeout = 60s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("ranks 4 calls 10"), std::string::npos) << r.diag();
  auto results = rank_results(sb, r, "prof.%r.json");
  expect_rank_fields(results);
  for (const auto& res : results)
    EXPECT_EQ(region(res, "mpi_work")["sources"]["calls"], "breakpoint") << res.dump().substr(0, 2000);
  // The work is proportional to r+1, so is the time (loosely: the VM is shared).
  EXPECT_GT(time_s(region(results[3], "mpi_work")), time_s(region(results[0], "mpi_work")));

  JobReport rep = report_job(sb, "prof.%r.json");
  EXPECT_NE(rep.table.find("MPI job"), std::string::npos) << rep.table;
  EXPECT_NE(rep.table.find("4 of 4 ranks"), std::string::npos) << rep.table;
  EXPECT_EQ(rep.row["calls"], 10) << rep.row.dump();  // 1 + 2 + 3 + 4, summed
  double slowest = 0;
  for (const auto& res : results) slowest = std::max(slowest, time_s(region(res, "mpi_work")));
  EXPECT_DOUBLE_EQ(rep.row["time_s"].get<double>(), slowest) << rep.row.dump();
  EXPECT_TRUE(rep.row["flops"].is_null()) << "the time backend measures no W";
  // The imbalance of the calls is exact: max/mean = 4 / 2.5.
  EXPECT_EQ(rep.spread["calls"], json::parse(R"({"min":1.0,"median":2.5,"max":4.0,"mean":2.5,
                                                 "imbalance":1.6})")) << rep.spread.dump();
  EXPECT_DOUBLE_EQ(rep.spread["time_s"]["max"].get<double>(), slowest);
  EXPECT_GT(rep.spread["time_s"]["imbalance"].get<double>(), 1.0);
  EXPECT_TRUE(rep.spread["flops"].is_null());
  EXPECT_NE(rep.table.find("per-rank spread (load imbalance = max/mean over the ranks)"),
            std::string::npos) << rep.table;
  EXPECT_NE(rep.table.find("1.60"), std::string::npos) << rep.table;
}

TEST(Mpi, AgentOnEachRankWithDefaultNames) {
  Sandbox sb;
  // --no-ptrace (the launcher or the cluster may forbid ptrace); no %r in the name: roofprof
  // adds the rank itself.
  auto r = sb.run(mpirun({"run", "--no-ptrace", "--backend", "time", "-q", "-o", "prof.json",
                          "--region", "mpi_work", "--", fixture("mpi_app"), "400000"}),
                  {.env = {}, .stdin_text = {}, .timeout = 60s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_FALSE(fs::exists(sb.path("prof.json"))) << "ranks must not share one file";
  auto results = rank_results(sb, r, "prof.%r.json");
  expect_rank_fields(results);
  for (const auto& res : results)
    EXPECT_EQ(region(res, "mpi_work")["sources"]["calls"], "agent") << res.dump().substr(0, 2000);
  JobReport rep = report_job(sb, "prof.%r.json");
  EXPECT_EQ(rep.row["calls"], 10) << rep.row.dump();
  EXPECT_DOUBLE_EQ(rep.spread["calls"]["imbalance"].get<double>(), 1.6) << rep.spread.dump();
}

// --backend emul on each rank runs the rank once, under valgrind (the launcher
// starts a rank once): every rank gets its exact W, and no time (null), which the job report
// keeps null rather than 0. Rank r calls mpi_work(N) r+1 times: 2N flops a call.
TEST(Mpi, EmulationOnEachRankGivesItsExactWork) {
  Sandbox sb;
  constexpr int kEmulRanks = 2;
  constexpr double kN = 400000;
  auto r = sb.run(mpirun({"run", "--backend", "emul", "-o", "emul.%r.json", "--region", "mpi_work", "--",
                          fixture("mpi_app"), "400000"},
                         kEmulRanks),
                  {.env = {}, .stdin_text = {}, .timeout = 120s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.err.find("backend emul: a rank of an MPI job (openmpi): one emulated run"), std::string::npos)
      << r.diag();
  double total = 0;
  for (int rank = 0; rank < kEmulRanks; ++rank) {
    SCOPED_TRACE(rank);
    json res = load_result(r, "emul." + std::to_string(rank) + ".json");
    EXPECT_EQ(res["job"]["rank"], rank);
    EXPECT_EQ(res["backend"], "emul");
    EXPECT_TRUE(res["wall_time_s"].is_null()) << res.dump().substr(0, 2000);
    json reg = region(res, "mpi_work");
    EXPECT_EQ(calls(reg), rank + 1);
    EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 2 * kN * (rank + 1)) << reg.dump();
    EXPECT_EQ(reg["sources"]["flops"], "emul");
    EXPECT_TRUE(reg["time_s"].is_null()) << reg.dump();
    EXPECT_TRUE(reg["time_per_call_s"].is_null()) << reg.dump();
    total += reg["flops"].get<double>();
  }
  auto rep = sb.roofprof({"report", "--no-plot", "--json", "-", "emul.0.json", "emul.1.json"});
  ASSERT_EQ(rep.exit_code(), 0) << rep.diag();
  json doc = json::parse(rep.out);
  json row;
  for (const auto& x : doc["rows"])
    if (x["region"] == "mpi_work" && x["group"].is_null()) row = x;
  ASSERT_TRUE(row.contains("time_s") && row.contains("gflops")) << row.dump();
  EXPECT_DOUBLE_EQ(row["flops"].get<double>(), total) << row.dump();  // 3 calls, 2.4 Mflop
  EXPECT_TRUE(row["time_s"].is_null()) << row.dump();
  EXPECT_TRUE(row["gflops"].is_null()) << row.dump();

  // A timed job of the same command: the report combines the two jobs rank by rank, the
  // time's T with the emulation's exact W.
  auto timed = sb.run(mpirun({"run", "--backend", "time", "-q", "-o", "time.%r.json", "--region", "mpi_work", "--",
                              fixture("mpi_app"), "400000"},
                             kEmulRanks),
                      {.env = {}, .stdin_text = {}, .timeout = 120s});
  ASSERT_EQ(timed.exit_code(), 0) << timed.diag();
  double slowest = 0;
  for (int rank = 0; rank < kEmulRanks; ++rank)
    slowest = std::max(slowest,
                       time_s(region(load_result(timed, "time." + std::to_string(rank) + ".json"), "mpi_work")));
  auto both = sb.roofprof({"report", "--no-plot", "--json", "-", "emul.0.json", "time.1.json", "emul.1.json",
                           "time.0.json"});
  ASSERT_EQ(both.exit_code(), 0) << both.diag();
  json combined = json::parse(both.out);
  json crow;
  for (const auto& x : combined["rows"])
    if (x["region"] == "mpi_work" && x["group"].is_null()) crow = x;
  EXPECT_DOUBLE_EQ(crow["flops"].get<double>(), total) << crow.dump();
  EXPECT_DOUBLE_EQ(crow["time_s"].get<double>(), slowest) << crow.dump();  // the job's: its slowest rank's
  EXPECT_DOUBLE_EQ(crow["gflops"].get<double>(), total / slowest / 1e9) << crow.dump();
  EXPECT_EQ(crow["sources"]["time"], "clock") << crow.dump();
  EXPECT_EQ(crow["sources"]["flops"], "emul") << crow.dump();
  EXPECT_NE(both.out.find("combined rank by rank"), std::string::npos) << both.out.substr(0, 3000);
}

// A 2-rank emulated job whose region is a static function of the executable, which
// the in-process agent marking a rank's regions cannot see. It was found: no rank says "never
// found"; its calls, W and Q were not measured, so the job's report says unknown (null, "-"),
// never 0 flops, 0 B or 0 GFlop/s.
TEST(Mpi, EmulatedRanksSayAnInternalFunctionIsFoundAndItsWUnknown) {
  Sandbox sb;
  auto r = sb.run(mpirun({"run", "--backend", "emul", "-o", "emul.%r.json", "--region", "local_work", "--",
                          fixture("mpi_internal"), "1000"},
                         2),
                  {.env = {}, .stdin_text = {}, .timeout = 120s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.err.find("never found"), std::string::npos) << r.diag();
  EXPECT_NE(r.err.find("local_work (function): found; its calls were not counted"), std::string::npos) << r.diag();
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(rank);
    json reg = region(load_result(r, "emul." + std::to_string(rank) + ".json"), "local_work");
    ASSERT_FALSE(reg["locations"].empty()) << reg.dump();
    EXPECT_EQ(reg["locations"][0]["symbol"], "local_work") << reg.dump();
    EXPECT_TRUE(reg["flops"].is_null()) << reg.dump();
  }
  auto rep = sb.roofprof({"report", "--no-plot", "--json", "-", "emul.0.json", "emul.1.json"});
  ASSERT_EQ(rep.exit_code(), 0) << rep.diag();
  const json doc = json::parse(rep.out);
  json row;
  for (const auto& x : doc["rows"])
    if (x["region"] == "local_work" && x["group"].is_null()) row = x;
  ASSERT_TRUE(row.is_object()) << rep.out.substr(0, 3000);
  EXPECT_TRUE(row["bytes"].is_null()) << row.dump();
  EXPECT_TRUE(row["flops"].is_null()) << row.dump();
  EXPECT_TRUE(row["gflops"].is_null()) << row.dump();
  auto text = sb.roofprof({"report", "--no-plot", "emul.0.json", "emul.1.json"});
  ASSERT_EQ(text.exit_code(), 0) << text.diag();
  const std::string line = text.out.substr(text.out.find("\nlocal_work") + 1, text.out.find('\n', text.out.find("\nlocal_work") + 1) - text.out.find("\nlocal_work") - 1);
  EXPECT_EQ(line.find(" 0 B"), std::string::npos) << text.out;
}

// 2 ranks on 2 cores, each calling a small region 10^5 times. roofprof's reader of the
// in-process records sleeps on the agents' doorbell (it wakes when a ring fills past its mark, at
// a process's end, at a stop, or every 100 ms) instead of polling, so the ranks keep their cores:
// the whole `--backend time -e none` job within 1.3x of the bare one (best of 3 of each,
// interleaved, so that other load on the machine weighs on both alike), every call counted, and
// the reader's CPU time in each rank's result.
TEST(Mpi, TheReaderYieldsTheCoresToTheRanks) {
  Sandbox sb;
  constexpr int kJobRanks = 2, kCalls = 100000;
  const std::vector<std::string> program{fixture("mpi_calls"), std::to_string(kCalls), "5000"};
  std::optional<RunResult> last;  // the last profiled job: its rank files
  auto job = [&](bool profiled) {
    std::vector<std::string> argv{MPIEXEC, "--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader",
                                  "--mca", "plm_rsh_agent", "", "-np", std::to_string(kJobRanks)};
    if (profiled)
      argv.insert(argv.end(), {roofprof_bin(), "run", "--backend", "time", "-e", "none", "-q", "-o", "reader.%r.json",
                               "-r", "mpi_tick", "--"});
    argv.insert(argv.end(), program.begin(), program.end());
    auto t0 = std::chrono::steady_clock::now();
    auto r = sb.run(argv, {.env = {}, .stdin_text = {}, .timeout = 180s});
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_NE(r.out.find("ranks 2 calls 200000"), std::string::npos) << r.diag();
    if (profiled) last = r;
    return wall;
  };
  double bare = 1e9, profiled = 1e9;
  for (int i = 0; i < 3; ++i) {
    bare = std::min(bare, job(false));
    profiled = std::min(profiled, job(true));
  }
  EXPECT_LE(profiled, 1.3 * bare) << "bare " << bare << " s, under roofprof " << profiled << " s";
  for (int rank = 0; rank < kJobRanks; ++rank) {
    SCOPED_TRACE(rank);
    json res = load_result(*last, "reader." + std::to_string(rank) + ".json");
    json tick = region(res, "mpi_tick");
    EXPECT_EQ(calls(tick), kCalls) << tick.dump();
    EXPECT_EQ(tick["sources"]["calls"], "patch") << tick.dump();
    ASSERT_TRUE(res.contains("agent_reader")) << res.dump().substr(0, 2000);
    const json& reader = res["agent_reader"];
    EXPECT_GT(num(reader, "cpu_s"), 0) << reader.dump();
    // It slept rather than polled: at most one sleep per 100 ms timeout, per stop of the rank and
    // per ring of its agent, never one per record (a poller wakes every 50 us while records come).
    const double wall = num(res, "wall_time_s");
    EXPECT_LT(reader["sleeps"].get<double>(), 10 * wall + 2000) << reader.dump() << " wall " << wall;
    // And it took little of the core: about 1-2 % of the rank's run here (the poller took ~19 %).
    EXPECT_LT(num(reader, "cpu_s"), 0.1 * wall) << reader.dump() << " wall " << wall;
  }
}

// --repeat cannot start a rank's program again inside the job: said in one line (a fake
// launcher environment is enough to check).
TEST(Mpi, RepeatUnderALauncherIsBadInput) {
  Sandbox sb;
  RunOptions env{.env = {{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}, {"SLURM_JOB_ID", "77"}}, .stdin_text = {}};
  {
    auto r = sb.roofprof({"run", "-q", "--region", "process_quit", "--repeat", "2", "--", fixture("run_exits")}, env);
    EXPECT_EQ(r.exit_code(), 2) << r.diag();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();
    EXPECT_NE(r.err.find("slurm"), std::string::npos) << r.diag();
  }
  // Emulation cannot start a rank again: auto without FP counters counts natively, in the one
  // run, and says the bytes it cannot measure then; --backend emul's fallback is time.
  auto r = sb.roofprof({"run", "--region", "process_quit", "-o", "p.%j.json", "--",
                        fixture("run_exits")}, env);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json res = load_result(r, "p.77.2.json");  // %j expanded, the rank added
  EXPECT_EQ(res["job"], json::parse(R"({"launcher":"slurm","rank":2,"size":4,"id":"77"})"));
  if (res["backend"] == "native")
    EXPECT_NE(r.err.find("a rank of an MPI job (slurm) runs once: bytes (Q) below L1"), std::string::npos) << r.diag();
  else
    EXPECT_EQ(res["backend"], "perf");  // a machine with FP counters
}

TEST(Mpi, RankPlaceholderOutsideALauncherIsBadInput) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "time", "--region", "process_quit", "-o",
                        "prof.%r.json", "--", fixture("run_exits")});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();
  EXPECT_NE(r.err.find("%r"), std::string::npos) << r.diag();
  EXPECT_FALSE(fs::exists(sb.path("prof.%r.json")));
}

}  // namespace
}  // namespace it
