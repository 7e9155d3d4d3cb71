// ProcessCounters over real threads: sums, retirement on exit, monotonic process reads.
#include <unistd.h>

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <memory>

#include "counters/backend.hpp"
#include "worker_thread.hpp"

namespace roofprof::counters {
namespace {

using testing::touch_fresh_pages;
using testing::WorkerThread;

constexpr size_t kFaults = 0;  // index of page-faults in the backend below

std::unique_ptr<Backend> faults_backend() {
  return make_perf_software_backend({"page-faults", "task-clock"});
}

TEST(ProcessCounters, SumsSeveralRealThreads) {
  auto b = faults_backend();
  ProcessCounters pc(*b);
  const size_t pages[] = {100, 200, 300};
  std::vector<std::unique_ptr<WorkerThread>> workers;
  for (size_t n : pages) {
    workers.push_back(std::make_unique<WorkerThread>([n] { touch_fresh_pages(n); }));
    pc.add_thread(workers.back()->tid());
  }
  for (auto& w : workers) w->run_job();  // all parked afterwards: counts are stable

  double sum_of_threads = 0;
  for (size_t i = 0; i < workers.size(); ++i) {
    const double faults = pc.read_thread(workers[i]->tid()).values[kFaults];
    EXPECT_GE(faults, double(pages[i]));
    EXPECT_LT(faults, double(pages[i] + 100));
    sum_of_threads += faults;
  }
  const CounterValues process = pc.read_process();
  ASSERT_EQ(process.values.size(), 2u);
  EXPECT_EQ(process.values[kFaults], sum_of_threads);
  EXPECT_GE(process.values[kFaults], 600.0);
  EXPECT_FALSE(process.multiplexed);
}

TEST(ProcessCounters, RemovedThreadIsFoldedIntoTheRetiredSum) {
  auto b = faults_backend();
  ProcessCounters pc(*b);
  WorkerThread stays([] { touch_fresh_pages(50); });
  auto leaves = std::make_unique<WorkerThread>([] { touch_fresh_pages(400); });
  const pid_t leaving_tid = leaves->tid();
  pc.add_thread(stays.tid());
  pc.add_thread(leaving_tid);
  stays.run_job();
  leaves->run_job();
  const double before_exit = pc.read_process().values[kFaults];
  EXPECT_GE(before_exit, 450.0);

  leaves->finish();  // the thread is gone; its perf group still holds its final counts
  leaves.reset();
  const double after_exit = pc.read_process().values[kFaults];
  EXPECT_GE(after_exit, before_exit);

  pc.remove_thread(leaving_tid);
  EXPECT_FALSE(pc.has_thread(leaving_tid));
  EXPECT_TRUE(pc.has_thread(stays.tid()));
  const double after_remove = pc.read_process().values[kFaults];
  EXPECT_EQ(after_remove, after_exit);  // nothing lost, nothing counted twice
  EXPECT_GE(after_remove, 450.0);

  pc.remove_thread(stays.tid());
  EXPECT_EQ(pc.read_process().values[kFaults], after_remove);  // only retired threads now
}

TEST(ProcessCounters, UnknownThreadReadsZerosOfTheRightSize) {
  auto b = faults_backend();
  ProcessCounters pc(*b);
  EXPECT_EQ(pc.size(), 2u);
  EXPECT_EQ(pc.read_thread(12345).values, (std::vector<double>{0, 0}));
  EXPECT_EQ(pc.read_process().values, (std::vector<double>{0, 0}));
  pc.remove_thread(12345);  // unknown: no effect
  EXPECT_EQ(pc.read_process().values, (std::vector<double>{0, 0}));
}

TEST(ProcessCounters, ReaddingALiveTidRetiresTheOldCounters) {
  auto b = faults_backend();
  ProcessCounters pc(*b);
  WorkerThread w([] { touch_fresh_pages(100); });
  pc.add_thread(w.tid());
  w.run_job();
  const double first = pc.read_process().values[kFaults];
  pc.add_thread(w.tid());  // fresh counters from zero, old values kept in the retired sum
  EXPECT_EQ(pc.read_thread(w.tid()).values[kFaults], 0.0);
  EXPECT_EQ(pc.read_process().values[kFaults], first);
}

// A backend whose threads count their reads: each read of a thread's group is one more.
class ReadCounting : public Backend {
 public:
  std::string name() const override { return "fake"; }
  const std::vector<EventInfo>& events() const override { return events_; }
  std::unique_ptr<ThreadCounters> open(pid_t tid) override {
    struct Counters : ThreadCounters {
      std::map<pid_t, int>* reads;
      pid_t tid;
      CounterValues read() override { return CounterValues{{double(++(*reads)[tid])}, false}; }
    };
    auto c = std::make_unique<Counters>();
    c->reads = &reads;
    c->tid = tid;
    return c;
  }
  std::map<pid_t, int> reads;

 private:
  std::vector<EventInfo> events_{{"reads", "count"}};
};

// The tracker reads the boundary's thread, then the process (scope=process): that thread's group
// is not read again (a read costs a system call; on the scripted PMU it is a step).
TEST(ProcessCounters, AProcessReadTakesTheBoundarysThreadFromItsFreshRead) {
  ReadCounting b;
  ProcessCounters pc(b);
  for (pid_t tid : {10, 11, 12}) pc.add_thread(tid);
  const CounterValues mine = pc.read_thread(11);
  EXPECT_EQ(mine.values, (std::vector<double>{1}));
  const CounterValues all = pc.read_process(11, &mine);
  EXPECT_EQ(b.reads, (std::map<pid_t, int>{{10, 1}, {11, 1}, {12, 1}}));
  EXPECT_EQ(all.values, (std::vector<double>{3}));
  EXPECT_EQ(pc.read_process().values, (std::vector<double>{6})) << "without one: every group read";
}

}  // namespace
}  // namespace roofprof::counters

namespace roofprof::counters {
namespace {

TEST(ProcessCounters, ProcessReadKeepsEveryThreadsPartUnderANumberNeverReused) {
  auto b = faults_backend();
  ProcessCounters pc(*b);
  WorkerThread one([] { touch_fresh_pages(10); });
  WorkerThread two([] { touch_fresh_pages(10); });
  pc.add_thread(one.tid());
  pc.add_thread(two.tid());
  const CounterValues before = pc.read_process();
  ASSERT_EQ(before.threads.size(), 2u);
  EXPECT_NE(before.threads[0].serial, before.threads[1].serial);
  pc.remove_thread(one.tid());
  pc.add_thread(one.tid());  // the same tid again: another thread as far as counting goes
  const CounterValues after = pc.read_process();
  ASSERT_EQ(after.threads.size(), 3u) << "the retired thread's last read stays";
  std::set<uint64_t> serials;
  for (const auto& t : after.threads) serials.insert(t.serial);
  EXPECT_EQ(serials.size(), 3u);
  EXPECT_EQ(after.threads[0].groups.size(), after.groups.size());
}

}  // namespace
}  // namespace roofprof::counters

namespace roofprof::counters {
namespace {

TEST(ProcessCounters, ThreadsThatExitExactArePooledIntoOnePart) {
  // Software events always run: every exited thread goes into part 0, however many there are,
  // and a region's process delta still counts each thread's work once.
  auto b = faults_backend();
  ProcessCounters pc(*b);
  std::vector<std::unique_ptr<WorkerThread>> workers;
  for (int i = 0; i < 3; ++i) {
    workers.push_back(std::make_unique<WorkerThread>([] { touch_fresh_pages(50); }));
    pc.add_thread(workers.back()->tid());
  }
  const CounterValues begin = pc.read_process();
  for (auto& w : workers) w->run_job();
  for (auto& w : workers) pc.remove_thread(w->tid());
  const CounterValues end = pc.read_process();
  ASSERT_EQ(end.threads.size(), 1u);
  EXPECT_EQ(end.threads[0].serial, 0u);
  const CounterDelta d = counter_delta(begin, end);
  EXPECT_DOUBLE_EQ(d.values[kFaults], end.values[kFaults] - begin.values[kFaults]);
  EXPECT_GE(d.values[kFaults], 150);
}

}  // namespace
}  // namespace roofprof::counters
