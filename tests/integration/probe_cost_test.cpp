// What probes cost (issue 13): a static function measured with breakpoints (up to four ptrace
// stops a call). A run whose probes cost a large part of it says so, with the estimate from
// measured stops, in the summary and in the result; probes that would make the run more than
// 10x slower than without them stop, and the run says when; a function called rarely gets no
// such line.
#include <algorithm>

#include "harness.hpp"

namespace it {
namespace {

// `roofprof run --backend time --no-preload -r bump -- run_hot_calls CALLS [WORK_US]`.
RunResult run_bump(Sandbox& sb, std::vector<std::string> program_args) {
  std::vector<std::string> argv{"run", "--backend", "time", "--no-preload", "-r", "bump", "--", fixture("run_hot_calls")};
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  return sb.roofprof(argv);
}

// What the probes of one call of bump cost on this host, in seconds, as the tracer estimates it:
// 2,000,000 back-to-back calls, probing stopped once judged (about 0.2 s, below), the estimate
// over the calls probed until then. A ptrace stop costs 2-5 us on bare metal, 25-250 us on VMs.
double probe_cost_per_call(Sandbox& sb) {
  auto r = run_bump(sb, {"2000000"});
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  const json& bump = region(doc, "bump");
  if (!bump.contains("probe_cost") || calls(bump) <= 0) {
    ADD_FAILURE() << "probing was not stopped: " << bump.dump();
    return 0;
  }
  return bump["probe_cost"]["estimated_s"].get<double>() / double(calls(bump));
}

// Calls with as much work after each as their probes cost (measured just before, same host):
// the probes cost about half of the run, far above the quarter from which they are reported, and
// make it about 2x slower, far below the 10x at which they stop: reported, never stopped,
// whatever a stop costs here. As many calls as make the run last about 0.6 s (the verdict needs
// 0.2 s), 200 to 100,000 of them.
TEST(ProbeCost, ProbesThatDominateTheRunAreReportedWithTheirCost) {
  Sandbox sb;
  const double per_call_s = probe_cost_per_call(sb);
  ASSERT_GT(per_call_s, 0);
  const double work_us = per_call_s * 1e6;
  const long n = std::clamp(long(0.6 / (2 * per_call_s)), 200L, 100000L);
  auto r = run_bump(sb, {std::to_string(n), std::to_string(work_us)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, std::to_string(n) + "\n");
  json doc = load_result(r);
  const json& bump = region(doc, "bump");
  EXPECT_EQ(calls(bump), n);
  const std::string w = doc["warnings"].dump();
  EXPECT_NE(w.find("region 'bump': its probes made"), std::string::npos)
      << w << "\n" << n << " calls, " << work_us << " us of work after each";
  EXPECT_NE(w.find("(estimated from measured stops): its times include that overhead"), std::string::npos) << w;
  ASSERT_TRUE(bump.contains("probe_cost")) << bump.dump();
  EXPECT_GE(bump["probe_cost"]["ptrace_stops"].get<int64_t>(), 2 * n);  // at least a trap in and one out
  EXPECT_GT(bump["probe_cost"]["estimated_s"].get<double>(), 0.0);
  EXPECT_TRUE(bump["probe_cost"]["stopped_at_s"].is_null()) << bump.dump();
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
