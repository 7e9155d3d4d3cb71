#include "regions/tracker.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace roofprof::regions {
namespace {

// A thread's counts advance by 10 per read of them; the process total is the sum of threads.
class FakeCounts : public CountSource {
 public:
  CounterValues read_thread(int pid, Tid tid) override {
    per_thread_[{pid, tid}] += 10;
    ++reads;
    return CounterValues{{per_thread_[{pid, tid}]}, false};
  }
  CounterValues read_process(int pid, Tid, const CounterValues&) override {
    ++reads;
    double sum = 0;
    for (const auto& [key, v] : per_thread_)
      if (key.first == pid) sum += v;
    return CounterValues{{sum}, false};
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

// An inlined copy: its entry point opens a call, a re-entry into its code after it was left
// reopens it as the same call (resumed), and a re-entry while open does nothing.
TEST_F(Fixture, AReentryIntoAnInlinedCopyResumesItsCall) {
  EXPECT_TRUE(tracker.span_start(3, at(7, 0, 1)));
  EXPECT_FALSE(tracker.span_resume(3, at(7, 0, 2)));  // open: nothing
  EXPECT_TRUE(tracker.span_stop(3, at(7, 0, 3)));
  EXPECT_TRUE(tracker.span_resume(3, at(7, 0, 5)));
  EXPECT_FALSE(tracker.span_start(3, at(7, 0, 6)));  // the entry point while resumed: no new call
  EXPECT_TRUE(tracker.span_stop(3, at(7, 0, 8)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[0].resumed);
  EXPECT_TRUE(out[1].resumed);
  EXPECT_EQ(out[1].end_ns - out[1].begin_ns, 3);
  EXPECT_EQ(out[1].reason, CloseReason::SpanStop);
}

TEST_F(Fixture, ThreadAndProcessExitCloseEverythingFlagged) {
  tracker.enter(1, at(7, 1000, 1));
  tracker.span_start(3, at(7, 0, 1));
  tracker.enter(1, at(8, 1000, 1));
  EXPECT_TRUE(tracker.thread_exit(at(7, 0, 5), CloseReason::ThreadExit));
  // The span; thread 7's instance of region 1 opened it in the process: it waits for the last
  // (thread 8's) with the work of the threads outside it (scope=process).
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].region, 3u);
  EXPECT_TRUE(tracker.process_exit(100, 9, CloseReason::Crash));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].tid, 8);
  EXPECT_EQ(out[1].reason, CloseReason::Crash);
  EXPECT_EQ(out[1].end_ns, 9);
  EXPECT_EQ(out[2].tid, 7);
  EXPECT_EQ(out[2].reason, CloseReason::ThreadExit);
  EXPECT_EQ(out[2].end_ns, 5);
  EXPECT_EQ(tracker.open_count(), 0u);
}

TEST_F(Fixture, ProcessExitClosesThreadByThreadInTidOrder) {
  for (Tid tid : {9, 3, 12, 5}) tracker.enter(1, at(tid, 1000, tid));
  tracker.enter(1, Boundary{200, 4, 1000, 1});  // another process: stays open
  EXPECT_TRUE(tracker.process_exit(100, 20, CloseReason::ProcessExit));
  ASSERT_EQ(out.size(), 4u);  // 9 entered first: it holds the others' work and comes last
  EXPECT_EQ(out[0].tid, 3);
  EXPECT_EQ(out[1].tid, 5);
  EXPECT_EQ(out[2].tid, 12);
  EXPECT_EQ(out[3].tid, 9);
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

// Threads in scope=process (docs/methodology.md, "Counters and scope"): each thread's work goes
// to its own instance; the work of a thread with no instance of the region open goes, while the
// region is open on some thread, to the instance that opened it in the process. Work below is
// set per thread; a read does not advance it.
class Work : public CountSource {
 public:
  CounterValues read_thread(int, Tid tid) override {
    return CounterValues{{tid == uncounted ? std::nan("") : done[tid]}, false};
  }
  CounterValues read_process(int, Tid, const CounterValues&) override {
    ++process_reads;
    double sum = 0;
    for (const auto& [tid, v] : done) sum += v;
    return CounterValues{{sum}, false};
  }
  std::map<Tid, double> done;
  int process_reads = 0;
  Tid uncounted = -1;  // a thread without counters of its own (the agent could open none)
};

struct Threads : ::testing::TestWithParam<Scope> {
  Work work;
  std::vector<Instance> out;
  Tracker tracker{work, [this](Instance&& i) { out.push_back(std::move(i)); }, GetParam()};
  Boundary at(Tid tid, uint64_t sp) { return Boundary{100, tid, sp, 0}; }
  void call(Tid tid) { tracker.enter(1, at(tid, 1000)); }
  void ret(Tid tid) { tracker.stack_at(at(tid, 1008), CloseReason::Return); }
  double total() const {
    double sum = 0;
    for (const Instance& i : out) sum += i.counts.at(0);
    return sum;
  }
  double of(Tid tid) const {
    double sum = 0;
    for (const Instance& i : out) sum += i.tid == tid ? i.counts.at(0) : 0;
    return sum;
  }
  bool process() const { return GetParam() == Scope::Process; }
};

// (a) Every thread calls the region at once (OpenMP parallel around a call): 4 x 100, once.
TEST_P(Threads, ConcurrentCallsCountEachThreadOnce) {
  for (Tid t = 1; t <= 4; ++t) call(t);
  for (Tid t = 1; t <= 4; ++t) work.done[t] += 100;
  for (Tid t = 4; t >= 1; --t) ret(t);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(total(), 400);
  for (Tid t = 1; t <= 4; ++t) EXPECT_EQ(of(t), 100) << t;
  EXPECT_EQ(work.process_reads, process() ? 2 : 0) << "the process read only as the region opens and closes in it";
}

// (b) One thread calls, workers do the work (threaded BLAS, an OpenMP loop inside the function).
TEST_P(Threads, WorkersWorkGoesToTheCallInProcessScope) {
  work.done[2] = 7;  // before the call: not the region's
  call(1);
  work.done[1] += 10;
  for (Tid t = 2; t <= 4; ++t) work.done[t] += 100;
  ret(1);
  work.done[3] += 1000;  // after it: not the region's
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].counts.at(0), process() ? 310 : 10);
}

// (c) Both: two threads call at once, a third works for both of them.
TEST_P(Threads, NestedParallelismCountsEveryThreadOnce) {
  call(1);
  call(2);
  work.done[1] += 100;
  work.done[2] += 100;
  work.done[3] += 50;
  ret(2);
  ret(1);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(total(), process() ? 250 : 200);
  EXPECT_EQ(of(1), process() ? 150 : 100) << "the first call in holds the helper's work";
  EXPECT_EQ(of(2), 100);
}

// The first call in returns before the last: it is passed on when the last returns, with what
// the threads outside the region did until then.
TEST_P(Threads, TheFirstCallWaitsForTheLastWithTheOthersWork) {
  call(1);
  work.done[1] += 5;
  call(2);
  ret(1);
  work.done[2] += 20;
  work.done[3] += 30;  // no instance of its own, the region open on thread 2
  ret(2);
  work.done[3] += 1000;
  call(2);  // the region opens again in the process: a new first call
  work.done[2] += 1;
  ret(2);
  ASSERT_EQ(out.size(), 3u);
  if (process()) {
    EXPECT_EQ(out[0].tid, 2);
    EXPECT_EQ(out[0].counts.at(0), 20);
    EXPECT_EQ(out[1].tid, 1);
    EXPECT_EQ(out[1].counts.at(0), 35);
  } else {
    EXPECT_EQ(out[0].tid, 1);
    EXPECT_EQ(out[0].counts.at(0), 5);
    EXPECT_EQ(out[1].counts.at(0), 20);
  }
  EXPECT_EQ(out[2].counts.at(0), 1);
}

// Two regions open at once on different threads: each is the process's work while it is open
// (whatever else the other threads are in), with its own first call; thread scope keeps them apart.
TEST_P(Threads, RegionsOpenAtOnceEachHaveTheProcesssWork) {
  call(1);
  tracker.enter(2, at(2, 1000));
  work.done[1] += 3;
  work.done[2] += 4;
  ret(1);
  tracker.stack_at(at(2, 1008), CloseReason::Return);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].region, 1u);
  EXPECT_EQ(out[0].counts.at(0), process() ? 7 : 3) << "thread 2 worked outside region 1 while it was open";
  EXPECT_EQ(out[1].counts.at(0), process() ? 7 : 4) << "and thread 1 outside region 2";
}

// A thread that exits inside the region: its work until then stays in the process's counts.
TEST_P(Threads, AWorkerThatExitsKeepsItsWork) {
  call(1);
  work.done[5] += 60;
  tracker.thread_exit(at(5, 0), CloseReason::ThreadExit);  // nothing open on it
  ret(1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].counts.at(0), process() ? 60 : 0);
}

// A thread whose own counters are unknown: with scope=process its work is still in the
// process's and so in the region's total (its instance 0, marked; the first one's others hold it).
TEST_P(Threads, AThreadWithoutCountersLeavesTheProcessTotal) {
  work.uncounted = 2;
  call(1);
  call(2);
  work.done[1] += 100;
  work.done[2] += 40;
  ret(2);
  ret(1);
  ASSERT_EQ(out.size(), 2u);
  if (process()) {
    EXPECT_EQ(total(), 140);
    EXPECT_TRUE(out[0].own_unknown);
    EXPECT_EQ(out[0].counts.at(0), 0);
    EXPECT_EQ(out[1].others, (std::vector<double>{40}));
  } else {
    EXPECT_TRUE(std::isnan(out[0].counts.at(0)));
  }
}

INSTANTIATE_TEST_SUITE_P(Scope, Threads, ::testing::Values(Scope::Process, Scope::Thread),
                         [](const auto& p) { return p.param == Scope::Process ? "Process" : "Thread"; });

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
  CounterValues read_thread(int, Tid) override { return CounterValues{{v_ += 1}, false}; }
  CounterValues read_process(int, Tid, const CounterValues&) override { return CounterValues{{v_}, false}; }

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


namespace roofprof::regions {
namespace {

// Compensation: each boundary brings the probe time its thread had since the thread's previous
// boundary; an instance gets what its thread had between its two boundaries, nested regions'
// boundaries included, and other threads' probe time not.
TEST_F(Fixture, AnInstanceGetsItsThreadsProbeTimeBetweenItsBoundaries) {
  auto probed = [&](Tid tid, uint64_t sp, int64_t t, double measured, double calibrated) {
    Boundary b = at(tid, sp, t);
    b.probe = ProbeTime{measured, calibrated};
    return b;
  };
  EXPECT_TRUE(tracker.enter(1, probed(7, 1000, 10, 5, 1)));        // before the outer opens: not its
  EXPECT_TRUE(tracker.enter(2, probed(7, 900, 20, 30, 2)));        // outer's entry rest + inner's entry
  EXPECT_TRUE(tracker.enter(3, probed(8, 900, 21, 1000, 100)));    // another thread: not the outer's
  EXPECT_TRUE(tracker.stack_at(probed(7, 908, 30, 7, 3), CloseReason::Return));  // inner returns
  EXPECT_TRUE(tracker.stack_at(probed(7, 1008, 40, 11, 4), CloseReason::Return));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].region, 2u);  // inner: its own entry's rest and its return's start
  EXPECT_DOUBLE_EQ(out[0].probe.measured_ns, 7.0);
  EXPECT_DOUBLE_EQ(out[0].probe.calibrated_ns, 3.0);
  EXPECT_EQ(out[1].region, 1u);
  EXPECT_DOUBLE_EQ(out[1].probe.measured_ns, 30.0 + 7 + 11);
  EXPECT_DOUBLE_EQ(out[1].probe.calibrated_ns, 2.0 + 3 + 4);
  EXPECT_TRUE(tracker.stack_at(probed(8, 1008, 50, 0, 0), CloseReason::Return));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_DOUBLE_EQ(out[2].probe.measured_ns, 0.0);  // thread 8's probe time before its entry is not its
}

// A thread that exits starts again from nothing: a new thread with its id has its own probe time.
TEST_F(Fixture, ProbeTimeIsForgottenWhenItsThreadExits) {
  Boundary b = at(7, 1000, 1);
  b.probe = ProbeTime{500, 0};
  EXPECT_TRUE(tracker.enter(1, b));
  EXPECT_TRUE(tracker.thread_exit(at(7, 0, 2), CloseReason::ThreadExit));
  Boundary again = at(7, 1000, 3);
  again.probe = ProbeTime{4, 0};
  EXPECT_TRUE(tracker.enter(1, again));
  Boundary ret = at(7, 1008, 5);
  ret.probe = ProbeTime{6, 0};
  EXPECT_TRUE(tracker.stack_at(ret, CloseReason::Return));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(out[1].probe.measured_ns, 6.0);
}

}  // namespace
}  // namespace roofprof::regions

namespace roofprof::regions {
namespace {

// Each instance has an id of its own and its parent's: the instance open directly below it on
// its thread when it opened (0 for none, and for another thread's).
TEST_F(Fixture, InstancesKnowTheirParentOnTheirThread) {
  ASSERT_TRUE(tracker.enter(1, at(7, 1000, 1)));
  ASSERT_TRUE(tracker.enter(2, at(7, 900, 2)));
  ASSERT_TRUE(tracker.enter(3, at(8, 500, 3)));  // another thread
  ASSERT_TRUE(tracker.stack_at(at(7, 908, 4), CloseReason::Return));
  ASSERT_TRUE(tracker.enter(2, at(7, 900, 5)));  // a second call of 2 inside 1
  ASSERT_TRUE(tracker.stack_at(at(7, 1008, 6), CloseReason::Return));
  ASSERT_TRUE(tracker.stack_at(at(8, 508, 7), CloseReason::Return));
  ASSERT_EQ(out.size(), 4u);
  std::map<std::pair<RegionId, int64_t>, const Instance*> by;
  for (const auto& i : out) by[{i.region, i.begin_ns}] = &i;
  const Instance &outer = *by.at({1, 1}), &first = *by.at({2, 2}), &second = *by.at({2, 5}), &other = *by.at({3, 3});
  EXPECT_EQ(outer.parent, 0u);
  EXPECT_EQ(first.parent, outer.id);
  EXPECT_EQ(second.parent, outer.id);
  EXPECT_EQ(other.parent, 0u);
  std::set<uint64_t> ids{outer.id, first.id, second.id, other.id};
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids.count(0), 0u);
}

}  // namespace
}  // namespace roofprof::regions
