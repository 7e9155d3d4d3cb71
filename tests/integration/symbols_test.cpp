// roofprof symbols: which names could be regions, in the executable and every library it loads.
#include <algorithm>

#include "harness.hpp"

namespace it {
namespace {

TEST(Symbols, ListsMatchingFunctionsOfTheExecutableAndItsLibraries) {
  Sandbox sb;
  auto r = sb.roofprof({"symbols", "--match", "gemm", "--", fixture("run_blas_app")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  // dgemm_ lives in OpenBLAS, a library the program links against, not in the executable.
  EXPECT_NE(r.out.find("openblas"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find(" dgemm_\n"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find(" cblas_dgemm\n"), std::string::npos) << r.diag();
  EXPECT_EQ(r.out.find(" printf\n"), std::string::npos) << "a name that does not match is listed\n" << r.diag();
  // The program was stopped at its entry point and killed: it never printed anything.
  EXPECT_EQ(r.out.find("dgemm ok"), std::string::npos) << r.diag();
}

TEST(Symbols, GlobAndCxxNames) {
  Sandbox sb;
  auto r = sb.roofprof({"symbols", "--match", "ns::*", "--", fixture("run_cxx_names")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("ns::Solver::step"), std::string::npos) << r.diag();
}

TEST(Symbols, NoProgramIsBadInput) {
  Sandbox sb;
  auto r = sb.roofprof({"symbols", "--match", "x"});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// A name without parameters means every overload, as in gdb: one region, the calls of both.
TEST(RegionNames, NameWithoutParametersTakesEveryOverload) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "ns::scale", "--", fixture("run_cxx_names")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "ns::scale");
  ASSERT_FALSE(reg.is_null()) << r.diag();
  EXPECT_EQ(calls(reg), 3) << reg.dump();  // scale(int) once, scale(double) twice
}

TEST(RegionNames, FullSignatureSelectsOneOverload) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "ns::scale(double)", "--", fixture("run_cxx_names")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "ns::scale(double)");
  ASSERT_FALSE(reg.is_null()) << r.diag();
  EXPECT_EQ(calls(reg), 2) << reg.dump();
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// numpy loads OpenBLAS by dlopen: `symbols --run` runs the program to its end and lists it, marked.
TEST(SymbolsRun, ListsLibrariesLoadedByDlopen) {
  Sandbox sb;
  std::string lib = fixture("librun_dlplug.so");
  auto r = sb.roofprof({"symbols", "--run", "--match", "plugin_work", "--", fixture("run_dlopen_app"), lib});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find(lib + "  (loaded by dlopen)\n"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find("plugin_work"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find("sum="), std::string::npos) << "the program ran to its end" << r.diag();
  // Without --run the program stops at its entry point: the plugin is not loaded yet.
  auto at_entry = sb.roofprof({"symbols", "--match", "plugin_work", "--", fixture("run_dlopen_app"), lib});
  EXPECT_EQ(at_entry.out.find("librun_dlplug.so"), std::string::npos) << at_entry.diag();
}

TEST(SymbolsRun, NumpyLoadsOpenBlasByDlopen) {
  if (!fs::exists("/usr/lib/python3/dist-packages/numpy")) GTEST_SKIP() << "python3-numpy is not installed";
  Sandbox sb;
  RunOptions ro;
  ro.env["OPENBLAS_NUM_THREADS"] = "1";
  ro.timeout = 60s;
  auto r = sb.roofprof({"symbols", "--run", "--match", "gemm", "--", "/usr/bin/python3", "-c", "import numpy"}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("/libblas.so.3  (loaded by dlopen)\n"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("cblas_dgemm"), std::string::npos);
  EXPECT_NE(r.out.find("dgemm_"), std::string::npos);
}

}  // namespace
}  // namespace it
