// exit() inside a region closes it as process_exit; pthread_exit inside one as thread_exit.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunExits, ExitAndPthreadExitInsideRegions) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "thread_quit", "--region", "process_quit", "--", fixture("run_exits")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("thread returned 5"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find("exiting"), std::string::npos) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["exit_status"], 0);
  json tq = region(doc, "thread_quit");
  json pq = region(doc, "process_quit");
  ASSERT_FALSE(tq.is_null());
  ASSERT_FALSE(pq.is_null());
  EXPECT_EQ(calls(tq), 1) << tq.dump();
  EXPECT_EQ(closed_by(tq, "thread_exit"), 1) << tq.dump();
  EXPECT_EQ(calls(pq), 1) << pq.dump();
  EXPECT_EQ(closed_by(pq, "process_exit"), 1) << pq.dump();
}

TEST(RunExits, OtherThreadsInsideARegionWhenTheProcessExits) {
  // 2 threads sit inside blocked_in_region(); main calls exit(0) outside any region.
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "blocked_in_region", "--", fixture("run_exits"), "blocked"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("both inside"), std::string::npos) << r.diag();
  json reg = region(load_result(r), "blocked_in_region");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 2) << reg.dump();
  EXPECT_EQ(threads(reg), 2) << reg.dump();
  EXPECT_EQ(closed_by(reg, "process_exit"), 2) << reg.dump();
}

}  // namespace
}  // namespace it
