// run --cache-state cold outside emulation: the tracer (breakpoints) and the in-process agent
// (--no-ptrace) evict the caches before every outermost region call, and only then. pre_app
// "recursion 5" makes two outermost calls of pre_rec, each recursing 5 deep: 2 evictions, not
// 10. The evidence is the count in the result, which does not depend on a noisy machine.
#include "harness.hpp"

namespace it {
namespace {

void expect_cold(const RunResult& r, int64_t evictions) {
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["cache_state"], "cold");
  EXPECT_EQ(doc["cache_evictions"], evictions) << doc.dump();
  EXPECT_EQ(calls(region(doc, "pre_rec")), 2);
}

TEST(CacheState, TracerEvictsBeforeEachOutermostCall) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--cache-state", "cold", "--region", "pre_rec", "--",
                        fixture("pre_app"), "recursion", "5"});
  expect_cold(r, 2);
}

TEST(CacheState, AgentEvictsBeforeEachOutermostCall) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--no-ptrace", "--backend", "time", "-q", "--cache-state", "cold", "--region",
                        "pre_rec", "--", fixture("pre_app"), "recursion", "5"});
  expect_cold(r, 2);
}

TEST(CacheState, WarmIsTheDefaultAndEvictsNothing) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--region", "pre_rec", "--", fixture("pre_app"),
                        "recursion", "5"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["cache_state"], "warm");
  EXPECT_TRUE(doc["cache_evictions"].is_null());
}

TEST(CacheState, UnknownStateIsBadInput) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--cache-state", "lukewarm", "--region", "pre_rec", "--", fixture("pre_app")});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
}

}  // namespace
}  // namespace it
