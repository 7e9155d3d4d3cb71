// A statically linked executable (gcc -static).
#include "harness.hpp"

namespace it {
namespace {

TEST(RunStatic, StaticExecutable) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "static_work", "--", fixture("run_static_app")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("sum="), std::string::npos) << r.diag();
  json reg = region(load_result(r), "static_work");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 7) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 7) << reg.dump();
}

}  // namespace
}  // namespace it
