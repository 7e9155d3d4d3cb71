#include "regions/tracker.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace roofprof::regions {
namespace {

// Counts advance by 10 per read per thread; the process total is the sum of threads.
class FakeCounts : public CountSource {
 public:
  CounterValues read(int pid, Tid tid) override {
    per_thread_[{pid, tid}] += 10;
    ++reads;
    return CounterValues{{per_thread_[{pid, tid}]}, false};
  }
  int reads = 0;

 private:
  std::map<std::pair<int, Tid>, double> per_thread_;
};

struct Fixture : ::testing::Test {
  FakeCounts counts;
  std::vector<Instance> out;
  Tracker tracker{counts, [this](Instance&& i) { out.push_back(std::move(i)); }};
  Boundary at(Tid tid, uint64_t sp, int64_t t) { return Boundary{100, tid, sp, t}; }
};

TEST_F(Fixture, FunctionClosesWhenStackRisesAboveEntry) {
  EXPECT_TRUE(tracker.enter(1, at(7, 1000, 5)));
  EXPECT_FALSE(tracker.stack_at(at(7, 1000, 6), CloseReason::Return));  // not above: still open
  EXPECT_TRUE(tracker.stack_at(at(7, 1008, 9), CloseReason::Return));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].region, 1u);
  EXPECT_EQ(out[0].begin_ns, 5);
  EXPECT_EQ(out[0].end_ns, 9);
  EXPECT_EQ(out[0].reason, CloseReason::Return);
  EXPECT_DOUBLE_EQ(out[0].counts.at(0), 10.0);  // 20 - 10
}

TEST_F(Fixture, RecursionCountsOnceAtTheOutermostLevel) {
  EXPECT_TRUE(tracker.enter(1, at(7, 1000, 1)));
  EXPECT_FALSE(tracker.enter(1, at(7, 900, 2)));
  EXPECT_FALSE(tracker.enter(1, at(7, 800, 3)));
  EXPECT_FALSE(tracker.stack_at(at(7, 808, 4), CloseReason::Return));  // inner returns
  EXPECT_FALSE(tracker.stack_at(at(7, 908, 5), CloseReason::Return));
  EXPECT_TRUE(tracker.stack_at(at(7, 1008, 6), CloseReason::Return));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].begin_ns, 1);
  EXPECT_EQ(out[0].end_ns, 6);
}

TEST_F(Fixture, NestedRegionsCloseInnermostFirstOnUnwind) {
  tracker.enter(1, at(7, 1000, 1));
  tracker.enter(2, at(7, 900, 2));
  EXPECT_TRUE(tracker.stack_at(at(7, 2000, 3), CloseReason::Longjmp));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].region, 2u);
  EXPECT_EQ(out[1].region, 1u);
  EXPECT_EQ(out[1].reason, CloseReason::Longjmp);
}

TEST_F(Fixture, ThreadsAreIndependent) {
  tracker.enter(1, at(7, 1000, 1));
  EXPECT_TRUE(tracker.enter(1, at(8, 1000, 1)));
  tracker.stack_at(at(8, 1008, 2), CloseReason::Return);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tid, 8);
  EXPECT_TRUE(tracker.is_open(1, 100, 7));
}

TEST_F(Fixture, SpanOpensAtStartAndClosesAtStopOnTheSameThread) {
  EXPECT_FALSE(tracker.span_stop(3, at(7, 0, 1)));  // STOP before START: nothing
  EXPECT_TRUE(tracker.span_start(3, at(7, 0, 2)));
  EXPECT_FALSE(tracker.span_start(3, at(7, 0, 3)));  // START again while open: nothing
  EXPECT_FALSE(tracker.span_stop(3, at(8, 0, 4)));   // another thread's STOP
  EXPECT_FALSE(tracker.stack_at(at(7, 99999, 5), CloseReason::Unwound));  // spans ignore the stack
  EXPECT_TRUE(tracker.span_stop(3, at(7, 0, 6)));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].reason, CloseReason::SpanStop);
  EXPECT_EQ(out[0].end_ns - out[0].begin_ns, 4);
}

TEST_F(Fixture, ThreadAndProcessExitCloseEverythingFlagged) {
  tracker.enter(1, at(7, 1000, 1));
  tracker.span_start(3, at(7, 0, 1));
  tracker.enter(1, at(8, 1000, 1));
  EXPECT_TRUE(tracker.thread_exit(at(7, 0, 5), CloseReason::ThreadExit));
  EXPECT_EQ(out.size(), 2u);
  EXPECT_TRUE(tracker.process_exit(100, 9, CloseReason::Crash));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].reason, CloseReason::Crash);
  EXPECT_EQ(out[2].end_ns, 9);
  EXPECT_EQ(tracker.open_count(), 0u);
}

TEST_F(Fixture, ProcessExitClosesThreadByThreadInTidOrder) {
  for (Tid tid : {9, 3, 12, 5}) tracker.enter(1, at(tid, 1000, tid));
  tracker.enter(1, Boundary{200, 4, 1000, 1});  // another process: stays open
  EXPECT_TRUE(tracker.process_exit(100, 20, CloseReason::ProcessExit));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].tid, 3);
  EXPECT_EQ(out[1].tid, 5);
  EXPECT_EQ(out[2].tid, 9);
  EXPECT_EQ(out[3].tid, 12);
  EXPECT_EQ(tracker.open_count(), 1u);
  EXPECT_FALSE(tracker.process_exit(100, 21, CloseReason::ProcessExit));
}

// A thread whose instances all closed keeps nothing open: its exit closes nothing, and a later
// entry of the same thread opens afresh (the tracker keeps the thread's table between calls).
TEST_F(Fixture, AThreadWithNothingOpenClosesNothingAndOpensAgain) {
  for (int call = 0; call < 3; ++call) {
    EXPECT_TRUE(tracker.enter(1, at(7, 1000, 10 * call)));
    EXPECT_FALSE(tracker.stack_at(at(8, 1008, 10 * call + 5), CloseReason::Return));  // another thread
    EXPECT_TRUE(tracker.stack_at(at(7, 1008, 10 * call + 5), CloseReason::Return));
    EXPECT_FALSE(tracker.stack_at(at(7, 1008, 10 * call + 6), CloseReason::Return));
    EXPECT_FALSE(tracker.is_open(1, 100, 7));
  }
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].begin_ns, 20);
  EXPECT_EQ(out[2].end_ns, 25);
  EXPECT_FALSE(tracker.thread_exit(at(7, 0, 40), CloseReason::ThreadExit));
  EXPECT_FALSE(tracker.span_stop(3, at(7, 0, 41)));
  EXPECT_TRUE(tracker.enter(1, at(7, 1000, 50)));  // the same tid again (reused after exit)
  EXPECT_TRUE(tracker.thread_exit(at(7, 0, 60), CloseReason::ThreadExit));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[3].reason, CloseReason::ThreadExit);
  EXPECT_EQ(tracker.open_count(), 0u);
}

TEST_F(Fixture, CountsAreReadOnlyWhenSomethingOpensOrCloses) {
  tracker.enter(1, at(7, 1000, 1));
  int before = counts.reads;
  tracker.enter(1, at(7, 900, 2));                          // recursion
  tracker.stack_at(at(7, 908, 3), CloseReason::Return);     // inner return
  EXPECT_EQ(counts.reads, before);
}

TEST_F(Fixture, TheCallsGroupKeyReachesItsInstance) {
  tracker.enter(1, at(7, 1000, 1), "m=2,n=3");
  EXPECT_FALSE(tracker.enter(1, at(7, 900, 2), "m=9,n=9"));  // recursion keeps the outer key
  tracker.stack_at(at(7, 1008, 3), CloseReason::Return);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].group, "m=2,n=3");
}

TEST(CloseReason, Names) {
  EXPECT_STREQ(to_string(CloseReason::Longjmp), "longjmp");
  EXPECT_STREQ(to_string(CloseReason::ProcessExit), "process_exit");
  EXPECT_FALSE(is_abnormal(CloseReason::Return));
  EXPECT_TRUE(is_abnormal(CloseReason::Crash));
}

// regions/close_reason.h numbers every reason once: each code names a distinct reason, which
// gives the code back, and a code past the list reads as Unwound.
TEST(CloseReason, EveryCodeRoundTrips) {
  std::set<std::string> names;
  for (uint64_t code = 0; code < RP_REASONS; ++code) {
    const CloseReason r = close_reason(code);
    EXPECT_EQ(code_of(r), code);
    EXPECT_STRNE(to_string(r), "unknown") << code;
    names.insert(to_string(r));
  }
  EXPECT_EQ(names.size(), size_t(RP_REASONS));
  EXPECT_EQ(close_reason(RP_REASON_RETURN), CloseReason::Return);
  EXPECT_EQ(close_reason(RP_REASON_SPAN_STOP), CloseReason::SpanStop);
  EXPECT_EQ(close_reason(RP_REASON_DETACH), CloseReason::Detach);
  EXPECT_EQ(close_reason(RP_REASONS), CloseReason::Unwound);
  EXPECT_EQ(close_reason(200), CloseReason::Unwound);
}

}  // namespace
}  // namespace roofprof::regions

namespace roofprof::regions {
namespace {

// A source whose counts are fixed per read, to tell two mechanisms' counters apart.
class ConstantCounts : public CountSource {
 public:
  explicit ConstantCounts(double v) : v_(v) {}
  CounterValues read(int, Tid) override { return CounterValues{{v_ += 1}, false}; }

 private:
  double v_;
};

struct Shared : ::testing::Test {
  ConstantCounts tracer{100}, agent{5000};
  std::vector<Instance> out;
  Tracker tracker{[this](Instance&& i) { out.push_back(std::move(i)); }};  // no default source
  Boundary at(CountSource& src, uint64_t sp, int64_t t) { return Boundary{100, 7, sp, t, &src}; }
};

// The combined mode's double count: the program's work() (a breakpoint) calls the library's
// work() (the agent) of the same region. One instance, the outer one, counted by its opener.
TEST_F(Shared, RegionSplitBetweenMechanismsNestsOnce) {
  EXPECT_TRUE(tracker.enter(1, at(tracer, 2000, 1)));
  EXPECT_TRUE(tracker.in_function(100, 7));
  EXPECT_FALSE(tracker.enter(1, at(agent, 1900, 2)));                       // inside: not a new call
  EXPECT_FALSE(tracker.stack_at(at(agent, 1908, 3), CloseReason::Return));  // its return closes nothing
  EXPECT_TRUE(tracker.stack_at(at(tracer, 2008, 4), CloseReason::Return));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].begin_ns, 1);
  EXPECT_EQ(out[0].end_ns, 4);
  EXPECT_DOUBLE_EQ(out[0].counts.at(0), 1.0);  // 102 - 101: the tracer's own counters
  EXPECT_FALSE(tracker.in_function(100, 7));
}

// Opened by one mechanism, closed by the other (e.g. the tracer sees the thread exit first):
// the two read different counters, so no delta was measured.
TEST_F(Shared, InstanceClosedByAnotherSourceHasUnknownCounts) {
  EXPECT_TRUE(tracker.enter(1, at(agent, 2000, 1)));
  EXPECT_TRUE(tracker.thread_exit(at(tracer, 0, 9), CloseReason::ThreadExit));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].reason, CloseReason::ThreadExit);
  EXPECT_TRUE(std::isnan(out[0].counts.at(0)));
}

TEST_F(Shared, SpanDoesNotMakeAnEntryInner) {
  EXPECT_TRUE(tracker.span_start(2, at(tracer, 2000, 1)));
  EXPECT_FALSE(tracker.in_function(100, 7));
}

TEST_F(Shared, BoundaryWithoutSourceIsAProgrammingError) {
  EXPECT_THROW(tracker.enter(1, Boundary{100, 7, 2000, 1}), std::logic_error);
}

}  // namespace
}  // namespace roofprof::regions
