// What probes cost (issue 13): a static function called 20,000 times, measured with breakpoints
// (three ptrace stops a call). The run says that its probes cost a large part of it, with the
// estimate from measured stops; a function called rarely gets no such line.
#include "harness.hpp"

namespace it {
namespace {

// `roofprof run --backend time -q --no-preload -r bump -- run_hot_calls CALLS`: its result.
json run_bump(const std::string& calls_made) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--no-preload", "-r", "bump", "--", fixture("run_hot_calls"),
                        calls_made});
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  return load_result(r);
}

TEST(ProbeCost, ProbesThatDominateTheRunAreReportedWithTheirCost) {
  json doc = run_bump("20000");
  EXPECT_EQ(calls(region(doc, "bump")), 20000);
  const std::string w = doc["warnings"].dump();
  EXPECT_NE(w.find("region 'bump': its probes made"), std::string::npos) << w;
  EXPECT_NE(w.find("(estimated from measured stops): its times include that overhead"), std::string::npos) << w;
}

TEST(ProbeCost, CheapProbesAreNotReported) {
  json doc = run_bump("3");
  EXPECT_EQ(calls(region(doc, "bump")), 3);
  EXPECT_EQ(doc["warnings"].dump().find("its probes made"), std::string::npos) << doc["warnings"].dump();
}

}  // namespace
}  // namespace it
