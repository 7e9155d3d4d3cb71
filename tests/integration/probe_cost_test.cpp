// What probes cost (issue 13): a static function called 20,000 times, measured with breakpoints
// (three ptrace stops a call). The run says that its probes cost a large part of it, with the
// estimate from measured stops; a function called rarely gets no such line.
#include "harness.hpp"

namespace it {
namespace {

TEST(ProbeCost, ProbesThatDominateTheRunAreReportedWithTheirCost) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--no-preload", "-r", "bump", "--", fixture("run_hot_calls"),
                        "20000"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "bump")), 20000);
  const std::string w = doc["warnings"].dump();
  EXPECT_NE(w.find("region 'bump': its probes made"), std::string::npos) << w;
  EXPECT_NE(w.find("(estimated from measured stops): its times include that overhead"), std::string::npos) << w;
}

TEST(ProbeCost, CheapProbesAreNotReported) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--no-preload", "-r", "bump", "--", fixture("run_hot_calls"),
                        "3"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "bump")), 3);
  EXPECT_EQ(doc["warnings"].dump().find("its probes made"), std::string::npos) << doc["warnings"].dump();
}

}  // namespace
}  // namespace it
