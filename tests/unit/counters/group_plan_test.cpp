// Groups sized to the counters of one hardware thread.
#include "counters/group_plan.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"

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

// The shipped set's per-thread lines as the planner sees them (it needs no encodings; libpfm4
// is left uninitialised in this process: a detection here would outlive into forked children).
std::vector<EncodedEvent> thread_events(const std::string& model) {
  std::vector<EncodedEvent> thread;
  for (const EventLine* line : find_event_set(model)->lines(EventScope::thread)) {
    EncodedEvent e;
    e.line = *line;
    thread.push_back(e);
  }
  return thread;
}

std::vector<std::string> ids(const std::vector<EncodedEvent>& events, const PlannedGroup& g) {
  std::vector<std::string> out;
  for (size_t i : g.members) out.push_back(events[i].line.id);
  return out;
}

TEST(GroupPlan, WEventsMakeOnePinnedGroupAndTheRestFillWhatItLeaves) {
  // 6 usable counters: W's three (one paired) take 4, the others get groups of 2.
  const std::vector<EncodedEvent> events = {ev("cycles", "", true), ev("a"), ev("w1"), ev("b"),
                                            ev("w2", "", false, 2), ev("c"), ev("w3")};
  const GroupPlan plan = plan_event_groups(events, {{"", 6}}, {"w1", "w2", "w3"});
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_TRUE(plan.groups[0].pinned);
  EXPECT_EQ(plan.groups[0].members, (Members{0, 2, 4, 6}));
  EXPECT_EQ(plan.groups[0].programmable, 4);
  EXPECT_FALSE(plan.groups[1].pinned);
  EXPECT_EQ(plan.groups[1].members, (Members{1, 3}));
  EXPECT_EQ(plan.groups[2].members, (Members{5}));
  EXPECT_TRUE(plan.w_whole());
  EXPECT_EQ(plan.w_misfit(), nullptr);
  EXPECT_TRUE(plan.left_out.empty());
}

TEST(GroupPlan, EventsWithNoCounterLeftBesideWAreLeftOut) {
  const std::vector<EncodedEvent> events = {ev("w1"), ev("w2"), ev("a")};
  const GroupPlan plan = plan_event_groups(events, {{"", 2}}, {"w1", "w2"});
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_TRUE(plan.groups[0].pinned);
  EXPECT_EQ(plan.left_out, (Members{2}));
  EXPECT_TRUE(plan.w_whole());
}

TEST(GroupPlan, WThatDoesNotFitIsNotPinnedAndGoesFirst) {
  const std::vector<EncodedEvent> events = {ev("cycles", "", true), ev("a"), ev("w1"), ev("w2"), ev("w3"), ev("w4")};
  const GroupPlan plan = plan_event_groups(events, {{"", 3}}, {"w1", "w2", "w3", "w4"});
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_FALSE(plan.groups[0].pinned);
  EXPECT_FALSE(plan.groups[1].pinned);
  EXPECT_EQ(plan.groups[0].members, (Members{0, 2, 3, 4}));
  EXPECT_EQ(plan.groups[1].members, (Members{5, 1}));
  EXPECT_FALSE(plan.w_whole());
  ASSERT_NE(plan.w_misfit(), nullptr);
  EXPECT_EQ(plan.w_misfit()->needed, 4);
  EXPECT_EQ(plan.w_misfit()->usable, 3);
}

TEST(GroupPlan, HybridWIsPinnedPerPmuAndWholeOnlyWhenEveryPmuFits) {
  const std::vector<EncodedEvent> events = {ev("wc1", "cpu_core"), ev("wc2", "cpu_core"), ev("wa1", "cpu_atom"),
                                            ev("l2", "cpu_core"), ev("wa2", "cpu_atom")};
  const std::set<std::string> w{"wc1", "wc2", "wa1", "wa2"};
  const GroupPlan fits = plan_event_groups(events, {{"cpu_core", 3}, {"cpu_atom", 2}}, w);
  ASSERT_EQ(fits.groups.size(), 3u);
  EXPECT_TRUE(fits.groups[0].pinned);
  EXPECT_EQ(fits.groups[0].members, (Members{0, 1}));
  EXPECT_EQ(fits.groups[1].members, (Members{3}));
  EXPECT_EQ(fits.groups[2].perf_pmu, "cpu_atom");
  EXPECT_EQ(fits.groups[2].members, (Members{2, 4}));
  EXPECT_TRUE(fits.groups[2].pinned);
  EXPECT_TRUE(fits.w_whole());
  const GroupPlan atom_short = plan_event_groups(events, {{"cpu_core", 3}, {"cpu_atom", 1}}, w);
  EXPECT_FALSE(atom_short.w_whole());
  EXPECT_EQ(atom_short.w_misfit()->perf_pmu, "cpu_atom");
  EXPECT_TRUE(atom_short.groups[0].pinned);  // the core's W still is
}

TEST(GroupPlan, NoWIdsIsNeverWhole) {
  EXPECT_FALSE(plan_event_groups({ev("a")}, {{"", 4}}, {}).w_whole());
  EXPECT_FALSE(plan_event_groups({ev("a")}, {{"", 4}}, {}).groups[0].pinned);
}

// On these models W's events are one pinned group (never multiplexed) that fits in the
// counters left once the NMI watchdog holds one; on Skylake-SP with Hyper-Threading (4
// counters) it cannot, and the plan says so.
TEST(GroupPlan, ShippedServerSetsPinWBesideTheWatchdog) {
  struct Expect { const char* model; size_t w_events; int usable; };
  for (const Expect& x : {Expect{"icx", 5, 7}, Expect{"spr", 5, 7}, Expect{"emr", 5, 7}, Expect{"gnr", 5, 7},
                          Expect{"zen4", 1, 5}, Expect{"zen5", 1, 5}}) {
    SCOPED_TRACE(x.model);
    const std::vector<EncodedEvent> thread = thread_events(x.model);
    const EventSet& set = *find_event_set(x.model);
    const std::vector<CounterLimit> limits{{"", set.counter_limit("") - 1}};
    ASSERT_EQ(limits[0].count, x.usable);
    const GroupPlan plan = plan_event_groups(thread, limits, w_event_ids(set));
    ASSERT_TRUE(plan.w_whole());
    ASSERT_TRUE(plan.groups[0].pinned);
    size_t w_members = 0;
    for (size_t i : plan.groups[0].members) w_members += w_event_ids(set).count(thread[i].line.id);
    EXPECT_EQ(w_members, x.w_events);
    EXPECT_EQ(w_members, w_event_ids(set).size());  // all of W, in this one group
    EXPECT_LE(plan.groups[0].programmable, x.usable);
    EXPECT_TRUE(plan.left_out.empty());
    for (size_t g = 1; g < plan.groups.size(); ++g) EXPECT_FALSE(plan.groups[g].pinned);
  }
  const std::vector<EncodedEvent> skx = thread_events("skx");
  const GroupPlan plan = plan_event_groups(skx, {{"", 3}}, w_event_ids(*find_event_set("skx")));
  EXPECT_FALSE(plan.w_whole());
  EXPECT_EQ(plan.w_misfit()->needed, 5);
  EXPECT_EQ(ids(skx, plan.groups[0]), (std::vector<std::string>{"cycles", "ref_cycles", "instructions", "fp_scalar",
                                                                 "dp_128", "fp_x4"}));
}

}  // namespace
}  // namespace roofprof::counters
