// report --hatchet: regions and call paths as a Hatchet literal tree (report/hatchet.hpp).
#include "report/hatchet.hpp"

#include <gtest/gtest.h>

#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

using nlohmann::ordered_json;

result::Group group(std::vector<std::string> path, uint64_t calls, double time_s, std::optional<double> flops,
                    double dram) {
  result::Group g;
  g.key = "<- " + path.front();
  g.call_path = std::move(path);
  g.calls = calls;
  g.time_s = time_s;
  g.flops = flops;
  g.bytes["DRAM"] = result::Bytes{dram / 2, dram / 2};
  return g;
}

// `work` called from phase_a and phase_b, both from main's line 27 (caller:2), and `solve`
// from phase_a; `init` ungrouped.
result::Run callers() {
  result::Run run = samples::typical();
  result::Region work = samples::region("work", "function", 8, 8.0);
  work.groups = {group({"phase_a (c.c:12)", "main (c.c:27)"}, 3, 3.0, 300.0, 30.0),
                 group({"phase_b (c.c:19)", "main (c.c:27)"}, 5, 5.0, 500.0, 50.0)};
  result::Region solve = samples::region("solve", "function", 2, 1.0);
  solve.groups = {group({"phase_a (c.c:13)", "main (c.c:27)"}, 2, 1.0, std::nullopt, 10.0)};
  result::Region init = samples::region("init", "function", 1, 0.5);
  init.flops = 7.0;
  run.regions = {work, solve, init};
  return run;
}

// Hatchet's literal format: every node has frame.name and frame.type, metrics with the same
// keys, and a list of children.
void expect_literal_node(const ordered_json& n) {
  ASSERT_TRUE(n.is_object());
  ASSERT_TRUE(n["frame"]["name"].is_string()) << n.dump();
  EXPECT_EQ(n["frame"]["type"], "function");
  ASSERT_TRUE(n["metrics"].is_object());
  for (const char* k : {"W", "Q", "T", "P", "I", "calls"}) EXPECT_TRUE(n["metrics"].contains(k)) << k << n.dump();
  for (const auto& [k, v] : n["metrics"].items()) EXPECT_TRUE(v.is_number() || v.is_null()) << k;
  ASSERT_TRUE(n["children"].is_array());
  for (const auto& c : n["children"]) expect_literal_node(c);
}

TEST(HatchetLiteral, CallPathsAreATreeWhoseFramesSumTheirRegions) {
  const ordered_json roots = hatchet_literal(callers(), View{});
  ASSERT_TRUE(roots.is_array());
  for (const auto& r : roots) expect_literal_node(r);
  ASSERT_EQ(roots.size(), 2u);  // main, and init (not grouped)
  const ordered_json& main = roots[0];
  EXPECT_EQ(main["frame"]["name"], "main (c.c:27)");
  ASSERT_EQ(main["children"].size(), 3u);  // phase_a (c.c:12), phase_b (c.c:19), phase_a (c.c:13)
  EXPECT_EQ(main["metrics"]["calls"], 3 + 5 + 2);
  EXPECT_DOUBLE_EQ(main["metrics"]["T"].get<double>(), 9.0);
  EXPECT_TRUE(main["metrics"]["W"].is_null()) << "solve's W is unknown: so is the sum";
  EXPECT_DOUBLE_EQ(main["metrics"]["Q"].get<double>(), 90.0);
  const ordered_json& a = main["children"][0];
  EXPECT_EQ(a["frame"]["name"], "phase_a (c.c:12)");
  ASSERT_EQ(a["children"].size(), 1u);
  const ordered_json& leaf = a["children"][0];
  EXPECT_EQ(leaf["frame"]["name"], "work");
  EXPECT_EQ(leaf["metrics"]["W"], 300.0);
  EXPECT_EQ(leaf["metrics"]["Q"], 30.0);
  EXPECT_EQ(leaf["metrics"]["T"], 3.0);
  EXPECT_EQ(leaf["metrics"]["P"], 100.0);
  EXPECT_EQ(leaf["metrics"]["I"], 10.0);
  EXPECT_TRUE(leaf["children"].empty());
  EXPECT_EQ(a["metrics"], leaf["metrics"]) << "a frame with one region below it has its metrics";
  const ordered_json& init = roots[1];
  EXPECT_EQ(init["frame"]["name"], "init");
  EXPECT_EQ(init["metrics"]["W"], 7.0);
  EXPECT_TRUE(init["metrics"]["Q"].is_null());
}

// Argument groups are children of their region, whose totals are theirs.
TEST(HatchetLiteral, ArgumentGroupsAreChildrenOfTheirRegion) {
  result::Run run = samples::typical();
  result::Region dgemm = samples::region("dgemm_", "function", 3, 3.0);
  dgemm.flops = 30.0;
  result::Group small, large;
  small.key = "n=10", small.calls = 2, small.time_s = 1.0, small.flops = 10.0;
  large.key = "n=20", large.calls = 1, large.time_s = 2.0, large.flops = 20.0;
  dgemm.groups = {small, large};
  run.regions = {dgemm};
  const ordered_json roots = hatchet_literal(run, View{});
  ASSERT_EQ(roots.size(), 1u);
  expect_literal_node(roots[0]);
  ASSERT_EQ(roots[0]["children"].size(), 2u);
  EXPECT_EQ(roots[0]["children"][0]["frame"]["name"], "dgemm_ [n=10]");
  double w = 0, t = 0;
  uint64_t calls = 0;
  for (const auto& c : roots[0]["children"])
    w += c["metrics"]["W"].get<double>(), t += c["metrics"]["T"].get<double>(), calls += c["metrics"]["calls"].get<uint64_t>();
  EXPECT_EQ(w, roots[0]["metrics"]["W"].get<double>());
  EXPECT_EQ(t, roots[0]["metrics"]["T"].get<double>());
  EXPECT_EQ(calls, roots[0]["metrics"]["calls"].get<uint64_t>());
}

}  // namespace
}  // namespace roofprof::report
