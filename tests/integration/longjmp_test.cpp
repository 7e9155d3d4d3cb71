// longjmp out of a region closes the instance and flags it.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunLongjmp, LongjmpClosesTheInstance) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "leave_by_longjmp", "--", fixture("run_longjmp")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("r=1 v=7"), std::string::npos) << r.diag();
  json reg = region(load_result(r), "leave_by_longjmp");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 2) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "longjmp"), 1) << reg.dump();
}

}  // namespace
}  // namespace it
