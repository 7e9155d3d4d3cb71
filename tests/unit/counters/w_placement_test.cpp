// Whether a plan holds W whole (pinned groups that fit) and, on hybrids, the share of a region's
// time on a core type whose FP operations the set does not count.
#include "counters/w_placement.hpp"

#include <gtest/gtest.h>

#include "counters/event_catalog.hpp"

namespace roofprof::counters {
namespace {

const EventSet kSet = parse_event_set(
    "model t\ntitle T\nvendor intel\nmatch pfm skx\ncounters 4\n"
    "event a raw:0x1\nevent b raw:0x2\nevent c raw:0x3\nevent q raw:0x4\nformula W = a + 2*b + c\n",
    "t.txt");

std::vector<EncodedEvent> events_of(const EventSet& set) {
  std::vector<EncodedEvent> out;
  for (const EventLine& l : set.events) out.push_back(EncodedEvent{l, "", 4, 0, 0});
  return out;
}

TEST(WPlacement, FlexibleGroupsAreAnEstimateWithTheirCount) {
  const std::vector<PlannedGroup> groups = {{"", {0, 1}, 2, false}, {"", {2, 3}, 2, false}};
  const WPlacement w = w_placement(kSet, events_of(kSet), groups, {{"", 3}});
  EXPECT_TRUE(w.has_w);
  EXPECT_FALSE(w.exact);
  EXPECT_EQ(w.why, "W's events are in 2 groups the kernel may rotate out at the tick (not pinned)");
}

TEST(WPlacement, WThatNeedsMoreCountersThanUsableSaysHowMany) {
  // The group plan pins W only where it fits: here its 3 events have 2 counters, so the plan's
  // groups are flexible and the reason is the plan's (GroupPlan::w_misfit), not the group count.
  const std::vector<PlannedGroup> groups = {{"", {0, 1}, 2, false}, {"", {2, 3}, 2, false}};
  const WPlacement w = w_placement(kSet, events_of(kSet), groups, {{"", 2}});
  EXPECT_FALSE(w.exact);
  EXPECT_EQ(w.why, "W's events need 3 counters on the core PMU and 2 are usable, so the kernel rotates them at the "
                   "tick (not pinned)");
}

TEST(WPlacement, PinnedGroupsThatFitAreExact) {
  const std::vector<PlannedGroup> groups = {{"", {0, 1, 2}, 3, true}, {"", {3}, 1, false}};
  const WPlacement w = w_placement(kSet, events_of(kSet), groups, {{"", 3}});
  EXPECT_TRUE(w.exact) << w.why;
}

TEST(WPlacement, PinnedGroupsBeyondTheCountersAreNot) {
  const std::vector<PlannedGroup> groups = {{"", {0, 1}, 2, true}, {"", {2, 3}, 2, true}};
  const WPlacement w = w_placement(kSet, events_of(kSet), groups, {{"", 3}});
  EXPECT_FALSE(w.exact);
  EXPECT_EQ(w.why, "W's pinned groups need more counters than the PMU has beside the NMI watchdog's");
}

TEST(WPlacement, OneWEventLeftOutOfAPinnedGroupIsNotWhole) {
  const std::vector<PlannedGroup> groups = {{"", {0, 1}, 2, true}, {"", {2, 3}, 2, false}};
  EXPECT_FALSE(w_placement(kSet, events_of(kSet), groups, {{"", 3}}).exact);
}

TEST(UncountedCoreTime, AlderLakeECoreShareComesFromTheAtomGroup) {
  // Alder Lake counts FP operations on cpu_core only. Values: the cpu_core group's events first,
  // then the cpu_atom group's (cycles_atom). The atom group ran 250 of 1000 ns: 25 % on E-cores.
  const EventSet& adl = *find_event_set("adl");
  const std::vector<std::string> names = {"cycles_core", "dp_scalar", "cycles_atom", "instructions_atom"};
  EXPECT_FALSE(uncounted_core_time(adl, names, {{0, 1000, 750}, {2, 1000, 0}}));
  const auto share = uncounted_core_time(adl, names, {{0, 1000, 750}, {2, 1000, 250}});
  ASSERT_TRUE(share);
  EXPECT_EQ(share->pmu, "cpu_atom");
  EXPECT_DOUBLE_EQ(share->share, 0.25);
  // Meteor Lake counts both core types: no core type is left out.
  const EventSet& mtl = *find_event_set("mtl");
  EXPECT_FALSE(uncounted_core_time(mtl, {"dp_scalar", "dp_flops_atom"}, {{0, 1000, 750}, {1, 1000, 250}}));
}

}  // namespace
}  // namespace roofprof::counters
