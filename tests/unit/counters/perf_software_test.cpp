// End to end on real threads with perf software events (works on a machine without a PMU).
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <gtest/gtest.h>
#include <thread>

#include "common/error.hpp"
#include "counters/backend.hpp"
#include "worker_thread.hpp"

namespace roofprof::counters {
namespace {

using testing::touch_fresh_pages;
using testing::WorkerThread;

size_t index_of(const Backend& b, const std::string& name) {
  for (size_t i = 0; i < b.events().size(); ++i)
    if (b.events()[i].name == name) return i;
  ADD_FAILURE() << "no event " << name;
  return 0;
}

double thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

TEST(PerfSoftware, DefaultEventsInOrderWithUnits) {
  auto b = make_perf_software_backend();
  EXPECT_EQ(b->name(), "perf");
  ASSERT_EQ(b->events().size(), 3u);
  EXPECT_EQ(b->events()[0].name, "task-clock");
  EXPECT_EQ(b->events()[0].unit, "ns");
  EXPECT_EQ(b->events()[1].name, "page-faults");
  EXPECT_EQ(b->events()[1].unit, "count");
  EXPECT_EQ(b->events()[2].name, "context-switches");
}

TEST(PerfSoftware, AcceptsEveryDocumentedName) {
  auto b = make_perf_software_backend({"task-clock", "cpu-clock", "page-faults", "minor-faults",
                                       "major-faults", "context-switches", "cpu-migrations"});
  EXPECT_EQ(b->events().size(), 7u);
  auto c = b->open(::gettid());
  EXPECT_EQ(c->read().values.size(), 7u);
}

TEST(PerfSoftware, UnknownEventNameIsUserError) {
  EXPECT_THROW(make_perf_software_backend({"task-clock", "cycles"}), UserError);
  try {
    make_perf_software_backend({"page-fault"});
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("page-fault'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("page-faults"), std::string::npos) << e.what();
  }
}

TEST(PerfSoftware, DuplicateEventNameIsUserError) {
  EXPECT_THROW(make_perf_software_backend({"page-faults", "page-faults"}), UserError);
}

TEST(PerfSoftware, OpeningAMissingThreadIsUserErrorWithAdvice) {
  auto b = make_perf_software_backend();
  try {
    b->open(0x3ffffff0);  // above pid_max: no such thread
    FAIL() << "open succeeded";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no such process"), std::string::npos) << e.what();
  }
}

TEST(PerfSoftware, ThreadSeesItsOwnPageFaultsOnly) {
  constexpr size_t kPages = 512;
  auto b = make_perf_software_backend({"page-faults", "minor-faults"});
  WorkerThread worker([] { touch_fresh_pages(kPages); });
  auto counters = b->open(worker.tid());
  CounterValues before = counters->read();
  EXPECT_EQ(before.values, (std::vector<double>{0, 0}));  // has not run since open
  touch_fresh_pages(4 * kPages);  // this thread's faults must not show up in the worker's
  worker.run_job();
  CounterValues after = counters->read();
  EXPECT_FALSE(after.multiplexed);
  EXPECT_GE(after.values[0], double(kPages));
  EXPECT_LT(after.values[0], double(2 * kPages));
  EXPECT_GE(after.values[1], double(kPages));
}

TEST(PerfSoftware, TaskClockOfABusyThreadGrows) {
  auto b = make_perf_software_backend();
  double cpu_ns = 0;
  WorkerThread worker([&cpu_ns] {
    const double start = thread_cpu_ns();
    while (thread_cpu_ns() - start < 30e6) {
    }
    cpu_ns = thread_cpu_ns() - start;
  });
  auto counters = b->open(worker.tid());
  const double before = counters->read().values[index_of(*b, "task-clock")];
  worker.run_job();
  const double after = counters->read().values[index_of(*b, "task-clock")];
  EXPECT_GE(after - before, 0.9 * cpu_ns);
  EXPECT_GE(after - before, 27e6);
}

TEST(PerfSoftware, SleepingThreadCountsContextSwitches) {
  auto b = make_perf_software_backend();
  WorkerThread worker([] {
    for (int i = 0; i < 10; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  auto counters = b->open(worker.tid());
  worker.run_job();
  EXPECT_GE(counters->read().values[index_of(*b, "context-switches")], 10.0);
}

TEST(NullBackend, HasNoEventsAndReadsNothing) {
  auto b = make_null_backend();
  EXPECT_EQ(b->name(), "time");
  EXPECT_TRUE(b->events().empty());
  EXPECT_TRUE(b->open(::gettid())->read().values.empty());
  ProcessCounters pc(*b);
  pc.add_thread(::gettid());
  EXPECT_TRUE(pc.read_process().values.empty());
}

}  // namespace
}  // namespace roofprof::counters
