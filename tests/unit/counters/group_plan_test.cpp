// Groups sized to the counters of one hardware thread.
#include "counters/group_plan.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {
namespace {

EncodedEvent ev(const std::string& id, const std::string& pmu = "", bool fixed = false, int cost = 1) {
  EncodedEvent e;
  e.line.id = id;
  e.line.perf_pmu = pmu;
  e.line.fixed = fixed;
  e.line.cost = cost;
  return e;
}

using Members = std::vector<size_t>;

TEST(GroupPlan, FillsGroupsInOrderAndPutsFixedEventsInTheFirst) {
  const std::vector<EncodedEvent> events = {ev("cycles", "", true), ev("a"), ev("b"), ev("c"),
                                            ev("d"), ev("e"), ev("instructions", "", true)};
  const auto groups = plan_groups(events, {{"", 4}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].members, (Members{0, 6, 1, 2, 3, 4}));
  EXPECT_EQ(groups[0].programmable, 4);
  EXPECT_EQ(groups[1].members, (Members{5}));
  EXPECT_EQ(groups[1].programmable, 1);
}

TEST(GroupPlan, PairedAmdEventsUseTwoCounters) {
  const std::vector<EncodedEvent> events = {ev("cycles"), ev("dp", "", false, 2), ev("sp", "", false, 2),
                                            ev("fills"), ev("x")};
  const auto groups = plan_groups(events, {{"", 6}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].members, (Members{0, 1, 2, 3}));
  EXPECT_EQ(groups[0].programmable, 6);
  EXPECT_EQ(groups[1].members, (Members{4}));
}

TEST(GroupPlan, HybridPmusNeverShareAGroup) {
  const std::vector<EncodedEvent> events = {ev("cyc_core", "cpu_core", true), ev("fp", "cpu_core"),
                                            ev("cyc_atom", "cpu_atom", true)};
  const auto groups = plan_groups(events, {{"cpu_core", 8}, {"cpu_atom", 6}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].perf_pmu, "cpu_core");
  EXPECT_EQ(groups[0].members, (Members{0, 1}));
  EXPECT_EQ(groups[1].perf_pmu, "cpu_atom");
  EXPECT_EQ(groups[1].members, (Members{2}));
  EXPECT_EQ(groups[1].programmable, 0);
}

TEST(GroupPlan, ErrorsWhenAnEventCannotFit) {
  EXPECT_THROW(plan_groups({ev("big", "", false, 2)}, {{"", 1}}), UserError);
  EXPECT_THROW(plan_groups({ev("a", "cpu_x")}, {{"", 4}}), UserError);
}

TEST(GroupPlan, ShippedSkylakeServerSetNeedsThreeGroupsWithFourCounters) {
  const EventSet& skx = *find_event_set("skx");
  PfmLibrary pfm(true);
  std::vector<EncodedEvent> thread;
  for (EncodedEvent& e : encode_event_set(skx, pfm, "skx"))
    if (e.line.scope == EventScope::thread) thread.push_back(e);
  const auto groups = plan_groups(thread, skx.counters);
  // 3 fixed + 8 FP + 2 L2 events on 4 programmable counters.
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].members.size(), 7u);
  EXPECT_EQ(groups[1].members.size(), 4u);
  EXPECT_EQ(groups[2].members.size(), 2u);
  EXPECT_EQ(thread[groups[0].members[0]].line.id, "cycles");
}

}  // namespace
}  // namespace roofprof::counters
