// 8 pthreads each calling the region k times give calls = 8k and threads = 8.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunThreads, EightThreadsCallingKTimes) {
  constexpr int k = 20;
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "thread_work", "--", fixture("run_threads"), std::to_string(k)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("done 20"), std::string::npos) << r.diag();
  json doc = load_result(r);
  json reg = region(doc, "thread_work");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 8 * k) << reg.dump();
  EXPECT_EQ(threads(reg), 8) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 8 * k) << reg.dump();
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(doc["exit_status"], 0);
}

TEST(RunThreads, EightThreadsThreadScope) {
  constexpr int k = 20;
  Sandbox sb;
  auto r = sb.roofprof({"run", "--scope", "thread", "--region", "thread_work", "--", fixture("run_threads"),
                        std::to_string(k)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "thread_work");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 8 * k) << reg.dump();
  EXPECT_EQ(threads(reg), 8) << reg.dump();
}

}  // namespace
}  // namespace it
