// Recursion counts once, at the outermost level: 3 calls of depth 10 give calls == 3.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunRecursion, CountsOutermostCallsOnly) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "recurse", "--", fixture("run_recursion")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "recurse");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 3) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 3) << reg.dump();
}

}  // namespace
}  // namespace it
