// "Is it vectorised?" answered by the report: each region's flops by vector width and
// precision, from the emulation backend's exact counts, on the same kernels compiled twice.
#include "harness.hpp"

namespace it {
namespace {

// The report's table line of `region`.
std::string table_line(const std::string& report, const std::string& region) {
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(region + " ", 0) == 0) return line;
  return "";
}

std::string report_of(Sandbox& sb, const std::string& program) {
  auto run = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "-q", "-r", "daxpy", "-r", "sqrt_div", "-o",
                          "w.json", "--", fixture(program), "counts"});
  EXPECT_EQ(run.exit_code(), 0) << run.diag();
  auto report = sb.roofprof({"report", "w.json"});
  EXPECT_EQ(report.exit_code(), 0) << report.diag();
  EXPECT_NE(report.out.find("flops by width"), std::string::npos) << report.out;
  return report.out;
}

TEST(VectorWidths, TheTableSaysWhichKernelsAreVectorised) {
  Sandbox sb;
  std::string o0 = report_of(sb, "emul_kernels_O0");
  EXPECT_NE(table_line(o0, "daxpy").find("dp scalar 100%"), std::string::npos) << o0;
  // -O3 -mavx2: daxpy's loop is 256-bit (its 3 remainder iterations of 2003 round to 0%);
  // sqrt_div stays scalar (sqrt may set errno).
  std::string avx2 = report_of(sb, "emul_kernels_O3_avx2_fma");
  EXPECT_NE(table_line(avx2, "daxpy").find("dp 256b 100%"), std::string::npos) << avx2;
  EXPECT_NE(table_line(avx2, "sqrt_div").find("dp scalar 100%"), std::string::npos) << avx2;
}

}  // namespace
}  // namespace it
