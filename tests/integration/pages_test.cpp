// A region touching N fresh pages sees >= N page faults; a region touching none sees few.
#include "harness.hpp"

namespace it {
namespace {

constexpr int kPages = 400;

void check_pages(const std::string& scope) {
  Sandbox sb;
  // Asked for by name: the emulation method (what auto picks without a PMU) counts none by default.
  auto r = sb.roofprof({"run", "--scope", scope, "--events", "page-faults,task-clock", "--region", "touch_pages",
                        "--region", "quiet_work", "--", fixture("run_pages"), std::to_string(kPages)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  json touch = region(doc, "touch_pages");
  json quiet = region(doc, "quiet_work");
  ASSERT_FALSE(touch.is_null());
  ASSERT_FALSE(quiet.is_null());
  EXPECT_EQ(calls(touch), 1) << touch.dump();
  EXPECT_EQ(calls(quiet), 1) << quiet.dump();
  EXPECT_GE(counter(touch, "page-faults"), kPages) << touch.dump();
  EXPECT_LT(counter(quiet, "page-faults"), kPages / 10) << quiet.dump();
  EXPECT_GT(counter(touch, "task-clock"), 0) << touch.dump();
}

TEST(RunPages, FreshPagesFaultInTheRegionProcessScope) { check_pages("process"); }
TEST(RunPages, FreshPagesFaultInTheRegionThreadScope) { check_pages("thread"); }

}  // namespace
}  // namespace it
