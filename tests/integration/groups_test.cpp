// Series by problem size: calls of dgemm_ grouped by their decoded arguments (m, n, k), with
// the standard work formula 2mnk beside the measured W.
#include "harness.hpp"

namespace it {
namespace {

const json* group(const json& reg, const std::string& key) {
  for (const auto& g : reg["groups"])
    if (g["key"] == key) return &g;
  return nullptr;
}

TEST(Groups, DgemmCallsGroupedBySize) {
  Sandbox sb;
  RunOptions ro;
  ro.env["OPENBLAS_NUM_THREADS"] = "1";
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "dgemm_", "--", fixture("run_blas_series")}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "dgemm_");
  ASSERT_FALSE(reg.is_null()) << r.diag();
  EXPECT_EQ(calls(reg), 4);
  ASSERT_TRUE(reg["groups"].is_array()) << reg.dump();
  ASSERT_EQ(reg["groups"].size(), 3u) << reg.dump();
  const json* g100 = group(reg, "m=100,n=100,k=50");
  ASSERT_TRUE(g100) << reg.dump();
  EXPECT_EQ((*g100)["calls"], 2);
  EXPECT_DOUBLE_EQ((*g100)["expected_work"].get<double>(), 2.0 * (2.0 * 100 * 100 * 50));
  EXPECT_TRUE((*g100)["flops"].is_null()) << "time backend measures no flops";
  const json* g50 = group(reg, "m=50,n=50,k=25");
  ASSERT_TRUE(g50) << reg.dump();
  EXPECT_EQ((*g50)["params"]["k"], 25);
}

// Arguments are read at a breakpoint on each call's entry: said, with the way to keep the
// function in-process (--group-by caller: its entry patched, no ptrace stop per call).
TEST(Groups, ArgumentsReadAtABreakpointAreSaid) {
  for (const std::string how : {"args", "caller"}) {
    Sandbox sb;
    RunOptions ro;
    ro.env["OPENBLAS_NUM_THREADS"] = "1";
    auto r = sb.roofprof({"run", "-q", "--backend", "time", "--group-by", how, "--region", "dgemm_", "--",
                          fixture("run_blas_series")}, ro);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json doc = load_result(r);
    json reg = region(doc, "dgemm_");
    EXPECT_EQ(calls(reg), 4);
    const std::string w = doc["warnings"].dump();
    const bool said = w.find("region 'dgemm_': the entry of dgemm_ (") != std::string::npos &&
                      w.find("its calls are grouped by their arguments, read at each call's entry") != std::string::npos;
    if (how == "args") {
      EXPECT_TRUE(said) << w;
      EXPECT_EQ(reg["sources"]["calls"], "breakpoint") << reg.dump();
    } else {
      EXPECT_FALSE(said) << w;
      EXPECT_EQ(reg["sources"]["calls"], "patch") << reg.dump();
    }
  }
}

TEST(Groups, EmulatedWPerGroup) {
  Sandbox sb;
  RunOptions ro;
  ro.env["OPENBLAS_NUM_THREADS"] = "1";
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "--region", "dgemm_", "--",
                        fixture("run_blas_series")}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "dgemm_");
  const json* g150 = group(reg, "m=150,n=150,k=75");
  ASSERT_TRUE(g150) << reg.dump();
  double expected = 2.0 * 150 * 150 * 75;
  ASSERT_TRUE((*g150)["flops"].is_number()) << reg.dump();
  // OpenBLAS also scales C by beta (m*n multiplications): W = 2mnk + mn, within 1% of 2mnk.
  EXPECT_GE((*g150)["flops"].get<double>(), expected);
  EXPECT_LE((*g150)["flops"].get<double>(), expected * 1.01);
}

}  // namespace
}  // namespace it
