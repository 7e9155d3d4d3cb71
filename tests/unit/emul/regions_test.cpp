// Region boundaries under emulation: recursion, longjmp, exceptions, spans, threads,
// libraries loaded by dlopen, process and thread scope.
#include <gtest/gtest.h>

#include "tests/unit/emul/emul_test_util.hpp"

namespace roofprof::emul::test {
namespace {

using regions::CloseReason;

enum { RECURSE, LEAF_LONGJMP, LEAF_THROW, THREAD_BODY, WORK, SPAN };

const Result& regions_run() {
  static const Result r = [] {
    std::string path = fixture("emul_regions");
    auto probes = entry_probes(path, {"recurse", "leaf_longjmp", "leaf_throw", "thread_body", "work"});
    probes.push_back(probes::PlannedProbe{SPAN, probes::SiteRole::SpanStart, path, symbol_address(path, "span_begin"), "", false});
    probes.push_back(probes::PlannedProbe{SPAN, probes::SiteRole::SpanStop, path, symbol_address(path, "span_end"), "", false});
    return run({path, "100"}, probes, Options{});
  }();
  return r;
}

TEST(EmulRegions, RecursionCountsOnceAtTheOutermostCall) {
  auto i = of_region(regions_run(), RECURSE);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0].reason, CloseReason::Return);
  EXPECT_EQ(flops(regions_run(), i[0]), 2 * 100 + 3);  // work + one add per level
}

TEST(EmulRegions, LongjmpClosesTheFunctionItLeaves) {
  auto i = of_region(regions_run(), LEAF_LONGJMP);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0].reason, CloseReason::Longjmp);
  EXPECT_EQ(flops(regions_run(), i[0]), 200);
}

TEST(EmulRegions, ExceptionUnwindingClosesTheFunctionsItLeaves) {
  auto i = of_region(regions_run(), LEAF_THROW);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0].reason, CloseReason::Exception);
  EXPECT_EQ(flops(regions_run(), i[0]), 200);
}

TEST(EmulRegions, SpanRunsFromStartToStop) {
  auto i = of_region(regions_run(), SPAN);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0].reason, CloseReason::SpanStop);
  EXPECT_EQ(flops(regions_run(), i[0]), 201);  // work(100) and the add of its result
}

TEST(EmulRegions, ThreadsHaveTheirOwnTid) {
  const Result& r = regions_run();
  auto body = of_region(r, THREAD_BODY);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_NE(body[0].tid, r.pid);
  // pthread_exit unwinds the thread and longjmps back into start_thread: an abnormal close.
  EXPECT_TRUE(regions::is_abnormal(body[0].reason));
  EXPECT_EQ(flops(r, body[0]), 200);
  auto work = of_region(r, WORK);
  ASSERT_EQ(work.size(), 5u);
  for (const auto& w : work) {
    EXPECT_EQ(w.reason, CloseReason::Return);
    EXPECT_EQ(flops(r, w), 200);
  }
  EXPECT_EQ(work[4].tid, body[0].tid);
  EXPECT_EQ(work[0].tid, r.pid);
}

TEST(EmulRegions, LibraryLoadedByDlopenIsProbedEachTimeItIsLoaded) {
  std::string lib = fixture("libemul_plugin.so");
  auto r = run({fixture("emul_dlopen"), lib, "500"}, entry_probes(lib, {"plugin_work"}), Options{});
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.instances.size(), 2u);
  for (const auto& i : r.instances) EXPECT_EQ(flops(r, i), 1000);
}

// dgemm_omp runs n/2 rows on each of 2 threads (static schedule), n = 32.
constexpr double kN = 32;

TEST(EmulRegions, ProcessScopeCountsEveryThreadOfTheProcess) {
  std::string path = fixture("emul_omp_dgemm");
  Options o;
  o.scope = regions::Scope::Process;
  auto r = run({path, "32"}, entry_probes(path, {"dgemm_omp"}), o);
  auto i = of_region(r, 0);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0].tid, r.pid);
  EXPECT_EQ(flops(r, i[0]), 2 * kN * kN * kN);
}

TEST(EmulRegions, ThreadScopeCountsTheThreadThatEntered) {
  std::string path = fixture("emul_omp_dgemm");
  Options o;
  o.scope = regions::Scope::Thread;
  auto r = run({path, "32"}, entry_probes(path, {"dgemm_omp", "dgemm_omp._omp_fn.0"}), o);
  auto outer = of_region(r, 0), parts = of_region(r, 1);
  ASSERT_EQ(outer.size(), 1u);
  EXPECT_EQ(flops(r, outer[0]), kN * kN * kN);  // the main thread's half
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_NE(parts[0].tid, parts[1].tid);
  EXPECT_EQ(flops(r, parts[0]), kN * kN * kN);
  EXPECT_EQ(flops(r, parts[1]), kN * kN * kN);
}

}  // namespace
}  // namespace roofprof::emul::test

namespace roofprof::emul::test {
namespace {

// Followed (run --follow-fork), a forked child is measured as its own process.
TEST(EmulProcesses, ForkedChildrenAreMeasuredAsTheirOwnProcess) {
  std::string path = fixture("emul_fork");
  Options o;
  o.follow_exec = true;
  auto r = run({path, "100"}, entry_probes(path, {"work"}), o);
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.instances.size(), 2u);
  for (const auto& i : r.instances) {
    EXPECT_EQ(i.reason, regions::CloseReason::Return);
    EXPECT_EQ(flops(r, i), i.pid == r.pid ? 200 : 400) << "pid " << i.pid;
  }
  EXPECT_NE(r.instances[0].pid, r.instances[1].pid);
}

// Not followed, its events are left out (valgrind runs it anyway), as the native run leaves it
// out without --follow-fork: the parent's call alone.
TEST(EmulProcesses, ForkedChildrenAreLeftOutUnlessFollowed) {
  std::string path = fixture("emul_fork");
  auto r = run({path, "100"}, entry_probes(path, {"work"}), Options{});
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(r.instances[0].pid, r.pid);
  EXPECT_EQ(flops(r, r.instances[0]), 200);
  EXPECT_FALSE(r.execed_unmeasured);
}

TEST(EmulProcesses, ExecdProgramsAreMeasuredWhenFollowed) {
  std::string path = fixture("emul_kernels_O2");
  Options o;
  o.follow_exec = true;
  auto r = run({"/bin/sh", "-c", "\"$0\" counts >/dev/null", path}, entry_probes(path, {"daxpy"}), o);
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.instances.size(), 2u);
  EXPECT_EQ(flops(r, r.instances[0]), 2000);
  EXPECT_EQ(flops(r, r.instances[1]), 2006);
  Options no;
  auto unfollowed = run({"/bin/sh", "-c", "\"$0\" counts >/dev/null", path}, entry_probes(path, {"daxpy"}), no);
  EXPECT_TRUE(unfollowed.instances.empty());
}

}  // namespace
}  // namespace roofprof::emul::test
