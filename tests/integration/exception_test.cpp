// A C++ exception thrown through a region and caught outside it closes the instance, flagged.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunException, ExceptionThroughTheRegion) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "thrower", "--", fixture("run_exception")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("caught boom r=1"), std::string::npos) << r.diag();
  json reg = region(load_result(r), "thrower");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 2) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "exception"), 1) << reg.dump();
}

}  // namespace
}  // namespace it
