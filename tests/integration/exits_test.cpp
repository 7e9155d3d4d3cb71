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

}  // namespace
}  // namespace it
