// The regions of an emulated run no clock timed (run/assemble.hpp: untimed_regions).
#include "run/assemble.hpp"

#include <gtest/gtest.h>

namespace roofprof::run {
namespace {

TEST(UntimedRegions, CallsCountedTimeNull) {
  probes::Planner planner({regions::parse_region("work"), regions::parse_region("other")});
  regions::Aggregator agg;
  agg.next_run();
  for (int64_t begin : {1000, 5000}) {
    regions::Instance inst;
    inst.region = 0;
    inst.pid = inst.tid = 7;
    inst.begin_ns = begin;
    inst.end_ns = begin + 2000;
    agg.add(inst);
  }
  // The same aggregate timed by a clock: what untimed_regions takes away.
  const auto timed = assemble_regions(planner, agg, {}, "");
  ASSERT_EQ(timed.size(), 2u);
  ASSERT_TRUE(timed[0].time_s.has_value());
  ASSERT_EQ(timed[0].sources.at("time"), "clock");

  const auto untimed = untimed_regions(planner, agg, "emulated run");
  ASSERT_EQ(untimed.size(), 2u);
  EXPECT_EQ(untimed[0].name, "work");
  EXPECT_EQ(untimed[0].calls, 2u);
  EXPECT_EQ(untimed[1].calls, 0u);
  for (const auto& r : untimed) {
    EXPECT_FALSE(r.time_s.has_value()) << r.name;
    EXPECT_FALSE(r.time_per_call_s.has_value()) << r.name;
    EXPECT_EQ(r.sources.count("time"), 0u) << r.name;
    EXPECT_EQ(r.sources.at("calls"), "emulated run") << r.name;
  }
}

}  // namespace
}  // namespace roofprof::run
