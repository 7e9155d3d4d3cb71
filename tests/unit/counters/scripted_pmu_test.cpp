// The scripted PMU's model of the kernel (counters/scripted_pmu.hpp): rotation of flexible groups
// at the tick, pinned groups and their error state, the NMI watchdog's counter, AMD's paired
// counters and core-type residency on hybrids. Each test opens groups directly and reads them the
// way PerfGroup does (PERF_FORMAT_GROUP with both times); the expected times follow from the
// kernel's rules applied by hand to the script (4 ticks of 250 ns a step).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/counts.hpp"
#include "common/error.hpp"
#include "counters/perf_group.hpp"
#include "counters/perf_thread_counters.hpp"
#include "counters/scripted_pmu.hpp"

namespace roofprof::counters {
namespace {

struct Ev {
  uint32_t type;
  uint64_t config;
};

// Opens `events` as one group on thread `tid`; the leader pinned when asked.
int open_group(ScriptedPmu& pmu, const std::vector<Ev>& events, bool pinned = false, pid_t tid = 1) {
  int leader = -1;
  for (const Ev& e : events) {
    perf_event_attr a = counting_attr(e.type, e.config);
    a.pinned = leader < 0 && pinned;
    const int fd = pmu.open(a, tid, -1, leader);
    EXPECT_GE(fd, 0);
    if (leader < 0) leader = fd;
  }
  return leader;
}

// "enabled/running: raw raw ..." of one group read, or "EOF" for a read of 0 bytes.
std::string read_group(ScriptedPmu& pmu, int leader) {
  uint64_t buf[16];
  const ssize_t n = pmu.read(leader, buf, sizeof buf);
  if (n == 0) return "EOF";
  std::string s = fmt::format("{}/{}:", buf[1], buf[2]);
  for (uint64_t i = 0; i < buf[0]; ++i) s += fmt::format(" {}", buf[3 + i]);
  return s;
}

std::vector<Ev> raw(std::initializer_list<uint64_t> configs) {
  std::vector<Ev> v;
  for (uint64_t c : configs) v.push_back({PERF_TYPE_RAW, c});
  return v;
}

TEST(ScriptedKernel, FlexibleGroupsThatDoNotFitTogetherRotateAtTheTick) {
  // 4 counters, two groups of 3: tick 0 group a (b does not fit), the rotation puts a last, tick
  // 1 b, tick 2 a, tick 3 b. Each counts 2 of the step's 4 ticks: 500 of 1000 ns, half the events.
  ScriptedPmu pmu("counters 4\ncount raw 0x1 400\ncount raw 0x4 800\n");
  const int a = open_group(pmu, raw({0x1, 0x2, 0x3}));
  const int b = open_group(pmu, raw({0x4, 0x5, 0x6}));
  EXPECT_EQ(read_group(pmu, a), "1000/500: 200 0 0");
  EXPECT_EQ(read_group(pmu, b), "1000/500: 400 0 0");
  EXPECT_EQ(read_group(pmu, a), "2000/1000: 400 0 0");
  EXPECT_EQ(read_group(pmu, b), "2000/1000: 800 0 0");
}

TEST(ScriptedKernel, GroupsThatFitTogetherAllRunEveryTick) {
  ScriptedPmu pmu("counters 6\ncount raw 0x1 400\n");
  const int a = open_group(pmu, raw({0x1, 0x2, 0x3}));
  const int b = open_group(pmu, raw({0x4, 0x5, 0x6}));
  EXPECT_EQ(read_group(pmu, a), "1000/1000: 400 0 0");
  EXPECT_EQ(read_group(pmu, b), "1000/1000: 0 0 0");
}

TEST(ScriptedKernel, PinnedGroupNeverRotatesOut) {
  // 4 counters: the pinned pair first, every tick; the two flexible pairs share the other two.
  ScriptedPmu pmu("counters 4\ncount raw 0x1 1000\n");
  const int f1 = open_group(pmu, raw({0x3, 0x4}));
  const int pinned = open_group(pmu, raw({0x1, 0x2}), true);
  const int f2 = open_group(pmu, raw({0x5, 0x6}));
  EXPECT_EQ(read_group(pmu, pinned), "1000/1000: 1000 0");
  EXPECT_EQ(read_group(pmu, f1), "1000/500: 0 0");
  EXPECT_EQ(read_group(pmu, f2), "1000/500: 0 0");
}

TEST(ScriptedKernel, PinnedGroupThatCannotGoOnIsInErrorAndReadsEndOfFile) {
  // kernel/events/core.c: merge_sched_in() puts a pinned group that cannot be scheduled into
  // error state, and __perf_read() returns 0 for it; it stays there.
  ScriptedPmu pmu("counters 2\ncount raw 0x1 10\n");
  const int pinned = open_group(pmu, raw({0x1, 0x2, 0x3}), true);
  const int other = open_group(pmu, raw({0x1, 0x2}));
  EXPECT_EQ(read_group(pmu, pinned), "EOF");
  EXPECT_EQ(read_group(pmu, other), "1000/1000: 10 0");
  EXPECT_EQ(read_group(pmu, pinned), "EOF");
}

TEST(ScriptedKernel, PinnedGroupsAfterOneThatDidNotFitGoIntoErrorToo) {
  // merge_sched_in() clears can_add_hw for the rest of the pinned pass of that PMU: the small
  // pinned group opened after the big one cannot go on although it would fit by itself.
  ScriptedPmu pmu("counters 3\npmu uncore_x 20\ncount raw 0x1 10\ncount 20 0x1 7\n");
  const int first = open_group(pmu, raw({0x1}), true);
  const int big = open_group(pmu, raw({0x2, 0x3, 0x4}), true);
  const int small = open_group(pmu, raw({0x5}), true);
  const int other_pmu = open_group(pmu, {{20, 0x1}}, true);
  EXPECT_EQ(read_group(pmu, first), "1000/1000: 10");
  EXPECT_EQ(read_group(pmu, big), "EOF");
  EXPECT_EQ(read_group(pmu, small), "EOF");
  EXPECT_EQ(read_group(pmu, other_pmu), "1000/1000: 7");
}

TEST(ScriptedKernel, IntelWatchdogHoldsTheFixedCyclesCounter) {
  // cycles (0x3c) has a fixed counter; with the watchdog on it needs one of the 4 general ones.
  const std::string machine = "cpu GenuineIntel 6 0x55\ncounters 4\nfixed raw 0x3c\ncount raw 0x1c7 8\n";
  const std::vector<Ev> group = raw({0x3c, 0x1c7, 0x2c7, 0x4c7, 0x8c7});
  ScriptedPmu off(machine + "kernel nmi_watchdog 0\n");
  EXPECT_EQ(read_group(off, open_group(off, group)), "1000/1000: 0 8 0 0 0");
  ScriptedPmu on(machine + "kernel nmi_watchdog 1\n");
  EXPECT_EQ(read_group(on, open_group(on, group)), "1000/0: 0 0 0 0 0");
  ScriptedPmu on_pinned(machine + "kernel nmi_watchdog 1\n");
  EXPECT_EQ(read_group(on_pinned, open_group(on_pinned, group, true)), "EOF");
}

TEST(ScriptedKernel, AmdWatchdogHoldsAGeneralCounterAndFlopsEventsTakeAPair) {
  // Zen: 6 counters. Event 0x003 is a Large Increment per Cycle event: two counters each.
  // Three of them fill all six: never with the watchdog's counter taken.
  const std::string zen = "cpu AuthenticAMD 0x19 0x61\ncounters 6\ncount raw 0xf03 100\n";
  const std::vector<Ev> three = raw({0xf03, 0x1003, 0x2003});
  const std::vector<Ev> two_and_one = raw({0xf03, 0x1003, 0x4844});
  ScriptedPmu off(zen + "kernel nmi_watchdog 0\n");
  EXPECT_EQ(read_group(off, open_group(off, three)), "1000/1000: 100 0 0");
  ScriptedPmu on(zen + "kernel nmi_watchdog 1\n");
  EXPECT_EQ(read_group(on, open_group(on, three)), "1000/0: 0 0 0");
  EXPECT_EQ(read_group(on, open_group(on, two_and_one, false, 2)), "1000/1000: 100 0 0");
  // Intel has no pairs: the same configs are single counters there.
  ScriptedPmu intel("cpu GenuineIntel 6 0x55\ncounters 4\nkernel nmi_watchdog 1\ncount raw 0xf03 100\n");
  EXPECT_EQ(read_group(intel, open_group(intel, three)), "1000/1000: 100 0 0");
}

TEST(ScriptedKernel, HybridGroupCountsOnlyOnItsCoreTypeButIsEnabledThroughout) {
  // The thread runs 3 of 4 ticks on cpu_core (type 4), one on cpu_atom (type 10). Each group is
  // enabled all 1000 ns, running only on its own core type, and counts all of its type's events.
  ScriptedPmu pmu("pmu cpu_core 4\npmu cpu_atom 10\nresidency 4 0.75\ncount 4 0x10c7 100\ncount 10 0x1c8 9\n");
  const int core = open_group(pmu, {{4, 0x10c7}});
  const int atom = open_group(pmu, {{10, 0x1c8}});
  EXPECT_EQ(read_group(pmu, core), "1000/750: 100");
  EXPECT_EQ(read_group(pmu, atom), "1000/250: 9");
}

TEST(ScriptedKernel, HybridThreadWithoutResidencyRunsOnTheFirstCoreType) {
  ScriptedPmu pmu("pmu cpu_core 4\npmu cpu_atom 10\ncount 10 0x1c8 9\n");
  const int atom = open_group(pmu, {{10, 0x1c8}});
  EXPECT_EQ(read_group(pmu, atom), "1000/0: 0");
}

TEST(ScriptedKernel, ReadingAllOfAThreadsGroupsIsOneStepAndEachThreadHasItsOwnClock) {
  ScriptedPmu pmu("count raw 0x1 5 7\n");
  const int a = open_group(pmu, raw({0x1}), false, 1);
  const int b = open_group(pmu, raw({0x1}), false, 1);
  const int other = open_group(pmu, raw({0x1}), false, 2);
  EXPECT_EQ(read_group(pmu, a), "1000/1000: 5");
  EXPECT_EQ(read_group(pmu, b), "1000/1000: 5");
  EXPECT_EQ(read_group(pmu, a), "2000/2000: 12");
  EXPECT_EQ(read_group(pmu, other), "1000/1000: 5");
}

TEST(ScriptedKernel, ScriptErrorsNameTheLine) {
  EXPECT_THROW(ScriptedPmu("ticks 3\n"), UserError);
  EXPECT_THROW(ScriptedPmu("watchdog sometimes\n"), UserError);
}

}  // namespace
}  // namespace roofprof::counters


namespace roofprof::counters {
namespace {

std::vector<EventSpec> specs(std::initializer_list<uint64_t> configs) {
  std::vector<EventSpec> v;
  for (uint64_t c : configs) v.push_back({fmt::format("e{:#x}", c), counting_attr(PERF_TYPE_RAW, c)});
  return v;
}

TEST(ScriptedKernel, PerfGroupPinsItsLeaderOnlyAndReadsAGroupInErrorAsNotCounted) {
  ScriptedPmu pmu("counters 2\ncount raw 0x1 8\n");
  PerfSystem* old = replace_perf_system(&pmu);
  {
    std::vector<PerfGroup> groups;
    groups.emplace_back(1, specs({0x1, 0x2}), true);       // fits: always on
    groups.emplace_back(1, specs({0x3, 0x4, 0x5}), true);  // needs 3 of 2: error state
    ASSERT_EQ(pmu.opened().size(), 5u);
    EXPECT_EQ(pmu.opened()[0].attr.pinned, 1u);
    EXPECT_EQ(pmu.opened()[1].attr.pinned, 0u);
    PerfThreadCounters t(std::move(groups));
    const CounterValues v = t.read();
    ASSERT_EQ(v.values.size(), 5u);
    EXPECT_EQ(v.values[0], 8);
    EXPECT_TRUE(v.groups[0].pinned);
    EXPECT_EQ(v.groups[0].running, 1000u);
    for (size_t i = 2; i < 5; ++i) EXPECT_FALSE(is_counted(v.values[i])) << i;
  }
  replace_perf_system(old);
}

}  // namespace
}  // namespace roofprof::counters

namespace roofprof::counters {
namespace {

// Reads of one thread's groups through the real read path, and the delta of the second step.
CounterDelta second_step(std::vector<PerfGroup> groups) {
  PerfThreadCounters t(std::move(groups));
  const CounterValues begin = t.read();
  return counter_delta(begin, t.read());
}

std::vector<EventSpec> on(uint32_t type, uint64_t config) {
  return {{fmt::format("{}:{:#x}", type, config), counting_attr(type, config)}};
}

TEST(ScriptedKernel, HybridTimeOnTheOtherCoreTypeIsNotMultiplexingForPinnedGroups) {
  // 3 of 4 ticks on P-cores: 100 dp_256 there, 9 flops on the E-core, in step 1.
  const std::string script = "pmu cpu_core 4\npmu cpu_atom 10\nresidency 4 0.75\n"
                             "count 4 0x10c7 0 100\ncount 10 0x1c8 0 9\n";
  for (bool pinned : {true, false}) {
    ScriptedPmu pmu(script);
    PerfSystem* old = replace_perf_system(&pmu);
    std::vector<PerfGroup> groups;
    groups.emplace_back(1, on(4, 0x10c7), pinned);
    groups.emplace_back(1, on(10, 0x1c8), pinned);
    const CounterDelta d = second_step(std::move(groups));
    replace_perf_system(old);
    if (pinned) {  // each core type's group counted all its work: exact
      EXPECT_EQ(d.values, (std::vector<double>{100, 9}));
      EXPECT_FALSE(d.multiplexed);
    } else {  // perf's scaling takes the other core type's time for multiplexing
      EXPECT_EQ(d.values, (std::vector<double>{100 * 4.0 / 3, 9 * 4.0}));
      EXPECT_TRUE(d.multiplexed);
    }
  }
}

}  // namespace
}  // namespace roofprof::counters
