// What probes cost (issue 13): a static function measured with breakpoints (up to four ptrace
// stops a call). A run whose probes cost a large part of it says so, with the estimate from
// measured stops, in the summary and in the result; probes that would make the run more than
// 10x slower than without them stop, and the run says when; a function called rarely gets no
// such line.
#include "harness.hpp"

namespace it {
namespace {

// `roofprof run --backend time --no-preload -r bump -- run_hot_calls CALLS [WORK_US]`.
RunResult run_bump(Sandbox& sb, std::vector<std::string> program_args) {
  std::vector<std::string> argv{"run", "--backend", "time", "--no-preload", "-r", "bump", "--", fixture("run_hot_calls")};
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  return sb.roofprof(argv);
}

// 2000 calls, 100 us of work after each (0.2 s bare): the probes (2 to 4 stops a call, 25-250
// us each here) cost from a third of the run to 10x the bare run: reported, never stopped.
TEST(ProbeCost, ProbesThatDominateTheRunAreReportedWithTheirCost) {
  Sandbox sb;
  auto r = run_bump(sb, {"2000", "100"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "2000\n");
  json doc = load_result(r);
  const json& bump = region(doc, "bump");
  EXPECT_EQ(calls(bump), 2000);
  const std::string w = doc["warnings"].dump();
  EXPECT_NE(w.find("region 'bump': its probes made"), std::string::npos) << w;
  EXPECT_NE(w.find("(estimated from measured stops): its times include that overhead"), std::string::npos) << w;
  ASSERT_TRUE(bump.contains("probe_cost")) << bump.dump();
  EXPECT_GE(bump["probe_cost"]["ptrace_stops"].get<uint64_t>(), 4000u);  // at least a trap in and one out
  EXPECT_GT(bump["probe_cost"]["estimated_s"].get<double>(), 0.0);
  EXPECT_TRUE(bump["probe_cost"]["stopped_at_s"].is_null());
  EXPECT_NE(r.err.find("! times include about"), std::string::npos) << r.err;
}

// 2,000,000 back-to-back calls: a few ms bare, minutes probed. Probing stops once the run has
// been judged (0.2 s) and the program ends at full speed, correct; the calls counted until
// then are a lower bound, and the result says when probing stopped.
TEST(ProbeCost, ProbesThatWouldMakeTheRunTenTimesSlowerStop) {
  Sandbox sb;
  auto r = run_bump(sb, {"2000000"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "2000000\n");
  json doc = load_result(r);
  const json& bump = region(doc, "bump");
  EXPECT_GT(calls(bump), 0);
  EXPECT_LT(calls(bump), 2000000);
  ASSERT_TRUE(bump.contains("probe_cost")) << bump.dump();
  const double stopped = bump["probe_cost"]["stopped_at_s"].get<double>();
  EXPECT_GE(stopped, 0.2);
  EXPECT_LT(stopped, 1.0);
  EXPECT_LT(doc["wall_time_s"].get<double>(), stopped + 1.0);  // the rest of the run went at full speed
  const std::string w = doc["warnings"].dump();
  EXPECT_NE(w.find("region 'bump': probing stopped"), std::string::npos) << w;
  EXPECT_NE(r.err.find("calls after that are not counted"), std::string::npos) << r.err;
}

// --max-probe-slowdown 0: every call is probed whatever it costs (20,000 calls: about 1 ms
// bare, seconds probed).
TEST(ProbeCost, NoLimitProbesEveryCall) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--no-preload", "--max-probe-slowdown", "0", "-r", "bump", "--",
                        fixture("run_hot_calls"), "20000"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  const json& bump = region(doc, "bump");
  EXPECT_EQ(calls(bump), 20000);
  ASSERT_TRUE(bump.contains("probe_cost")) << bump.dump();
  EXPECT_TRUE(bump["probe_cost"]["stopped_at_s"].is_null());
}

TEST(ProbeCost, CheapProbesAreNotReported) {
  Sandbox sb;
  auto r = run_bump(sb, {"3"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  const json& bump = region(doc, "bump");
  EXPECT_EQ(calls(bump), 3);
  EXPECT_FALSE(bump.contains("probe_cost")) << bump.dump();
  EXPECT_EQ(doc["warnings"].dump().find("its probes made"), std::string::npos) << doc["warnings"].dump();
}

}  // namespace
}  // namespace it
