// ROOFPROF_AGENT_EVENTS from a backend's thread groups (record_format.h), and where the timed
// groups' times sit in the agent's snapshots.
#include "preload/agent_events.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "common/error.hpp"
#include "preload/record_format.h"

namespace roofprof::preload {
namespace {

perf_event_attr attr(uint32_t type, uint64_t config, uint64_t config1 = 0, bool user = false) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.type = type;
  a.config = config;
  a.config1 = config1;
  a.exclude_kernel = user ? 1 : 0;
  return a;
}

TEST(AgentEvents, SoftwareGroupThenHardwareGroupsWithTheirTimes) {
  const AgentEvents e = agent_events({{attr(PERF_TYPE_SOFTWARE, 1), attr(PERF_TYPE_SOFTWARE, 2)},
                                      {attr(PERF_TYPE_RAW, 0x1c7, 0, true), attr(PERF_TYPE_RAW, 0x2c7, 0, true)},
                                      {attr(10, 0x1b7, 0x3fb, true)}},
                                     5);
  EXPECT_EQ(e.setting, "1:1:0:0,1:2:0:0;4:455:0:1,4:711:0:1;10:439:1019:1");
  EXPECT_EQ(e.n_events, 5u);
  ASSERT_EQ(e.timed.size(), 2u);  // the software group has no times: never rotated out
  EXPECT_EQ(e.timed[0].first, 2u);
  EXPECT_EQ(e.timed[0].count, 2u);
  EXPECT_EQ(e.timed[1].first, 4u);
  EXPECT_EQ(e.timed[1].count, 1u);
}

// exclusive passes; pinned does not (agent_events.cpp: a second pinned group that cannot be
// scheduled would freeze and read as zeros through its page).
TEST(AgentEvents, ExclusiveLeadersKeepTheFlagPinnedOnesDoNot) {
  perf_event_attr lead = attr(PERF_TYPE_RAW, 0x1c7, 0, true);
  lead.pinned = 1;
  perf_event_attr excl = attr(PERF_TYPE_RAW, 0x2c7);
  excl.exclusive = 1;
  const AgentEvents e = agent_events({{lead, attr(PERF_TYPE_RAW, 0x4c7, 0, true)}, {excl}}, 3);
  EXPECT_EQ(e.setting, "4:455:0:1,4:1223:0:1;4:711:0:4");
}

TEST(AgentEvents, NoEventsIsTimeOnly) {
  const AgentEvents e = agent_events({}, 0);
  EXPECT_EQ(e.setting, "");
  EXPECT_TRUE(e.timed.empty());
}

TEST(AgentEvents, SystemWideEventsAreRefused) {
  // Two per-thread events and one memory-controller event the groups do not cover.
  EXPECT_THROW(agent_events({{attr(PERF_TYPE_RAW, 1), attr(PERF_TYPE_RAW, 2)}}, 3), UserError);
}

TEST(AgentEvents, TooManyEventsOrGroupsAreRefused) {
  std::vector<perf_event_attr> big(RP_MAX_EVENTS + 1, attr(PERF_TYPE_RAW, 1));
  EXPECT_THROW(agent_events({big}, big.size()), UserError);
  std::vector<std::vector<perf_event_attr>> many(RP_MAX_TIMED_GROUPS + 1, {attr(PERF_TYPE_RAW, 1)});
  EXPECT_THROW(agent_events(many, many.size()), UserError);
}

}  // namespace
}  // namespace roofprof::preload
