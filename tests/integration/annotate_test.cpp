// roofprof run --annotate and roofprof annotate: a region's W and L1 bytes per source line and
// per instruction, from the emulated run. daxpy at -O3 -mavx2 -mfma: its whole W is on the
// loop's line, almost all of it in the 256-bit FMA of the vector loop.
#include <fstream>

#include "harness.hpp"

namespace it {
namespace {

// The line of tests/fixtures/emul/kernels.c holding daxpy's loop body (its first "y[i] += a * x[i]").
int daxpy_line() {
  std::ifstream in(source_path("tests/fixtures/emul/kernels.c"));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find("y[i] += a * x[i];") != std::string::npos) return n;
  return 0;
}

// The output line that contains `needle`, or "".
std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find(needle) != std::string::npos) return l;
  return "";
}

TEST(Annotate, DaxpyWorkIsOnTheLoopLineAndItsVectorInstructions) {
  Sandbox sb;
  auto run = sb.roofprof({"run", "-q", "--backend", "emul", "--no-cache-sim", "--annotate", "-r", "daxpy", "--",
                          fixture("emul_kernels_O3_avx2_fma"), "counts"});
  ASSERT_EQ(run.exit_code(), 0) << run.diag();
  json reg = region(load_result(run), "daxpy");
  const double w = reg["flops"].get<double>();  // 2 (1000 + 1003)
  EXPECT_EQ(w, 4006);
  double sum = 0, on_256 = 0;
  for (const auto& a : reg["annotation"]) {
    sum += a["flops"].get<double>();
    if (a["flops_by_class"].contains("dp_256")) on_256 += a["flops_by_class"]["dp_256"].get<double>();
    EXPECT_FALSE(a["partial"].get<bool>()) << a.dump();
  }
  EXPECT_EQ(sum, w);  // every flop of the region is on one of its instructions
  EXPECT_EQ(on_256, 4000);

  auto ann = sb.roofprof({"annotate", "roofprof.json", "daxpy"});
  ASSERT_EQ(ann.exit_code(), 0) << ann.diag();
  const std::string loop = line_with(ann.out, "kernels.c:" + std::to_string(daxpy_line()));
  EXPECT_NE(loop.find("100.0%"), std::string::npos) << ann.out;
  EXPECT_NE(loop.find("4.01 k"), std::string::npos) << ann.out;
  const std::string fma = line_with(ann.out, "vfmadd213pd ymm");
  EXPECT_NE(fma.find("4.00 k"), std::string::npos) << ann.out;
  EXPECT_NE(fma.find("dp 256b 100%"), std::string::npos) << ann.out;
  auto att = sb.roofprof({"annotate", "--syntax", "att", "roofprof.json", "daxpy"});
  EXPECT_NE(att.out.find("vfmadd213pd (%"), std::string::npos) << att.out;
}

TEST(Annotate, WithoutCountsPerInstructionIsBadInput) {
  Sandbox sb;
  auto run = sb.roofprof({"run", "-q", "--backend", "emul", "--no-cache-sim", "-r", "daxpy", "--",
                          fixture("emul_kernels_O0"), "counts"});
  ASSERT_EQ(run.exit_code(), 0) << run.diag();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"annotate", "roofprof.json", "daxpy"},
           {"annotate", "roofprof.json", "nosuch"},
           {"run", "--annotate", "--backend", "time", "-r", "daxpy", "--", fixture("emul_kernels_O0"), "counts"}}) {
    auto r = sb.roofprof(args);
    EXPECT_EQ(r.exit_code(), 2) << r.diag();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();
  }
}

}  // namespace
}  // namespace it
