// The exact form `roofprof --region dgemm_ -- ./app` on a program calling OpenBLAS's dgemm_.
#include "harness.hpp"

namespace it {
namespace {

void check_dgemm(const std::string& blas_threads) {
  Sandbox sb;
  fs::copy_file(fixture("run_blas_app"), sb.path("app"));
  fs::permissions(sb.path("app"), fs::perms::owner_all, fs::perm_options::add);
  RunOptions ro;
  ro.env["OPENBLAS_NUM_THREADS"] = blas_threads;
  auto r = sb.roofprof({"--region", "dgemm_", "--", "./app"}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("dgemm ok"), std::string::npos) << r.diag();
  json reg = region(load_result(r), "dgemm_");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 4) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 4) << reg.dump();
  ASSERT_TRUE(reg["locations"].is_array() && !reg["locations"].empty()) << reg.dump();
  EXPECT_NE(reg["locations"][0]["module"].get<std::string>().find("openblas"), std::string::npos) << reg.dump();
}

TEST(RunOpenBLAS, DgemmShortFormOneThread) { check_dgemm("1"); }
TEST(RunOpenBLAS, DgemmShortFormTwoThreads) { check_dgemm("2"); }

}  // namespace
}  // namespace it
