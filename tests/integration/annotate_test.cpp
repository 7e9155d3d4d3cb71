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

// The HTML report shows each annotated region's table: the loop's line holds all of W, the FMA
// its 4000 flops; a result without counts per instruction has no such section.
TEST(Annotate, HtmlReportHasTheAnnotationOfEachAnnotatedRegion) {
  Sandbox sb;
  auto run = sb.roofprof({"run", "-q", "--backend", "emul", "--no-cache-sim", "--annotate", "-r", "daxpy", "-o",
                          "a.json", "--", fixture("emul_kernels_O3_avx2_fma"), "counts"});
  ASSERT_EQ(run.exit_code(), 0) << run.diag();
  auto rep = sb.roofprof({"report", "a.json", "--html", "a.html"});
  ASSERT_EQ(rep.exit_code(), 0) << rep.diag();
  const std::string html = read_text(sb.path("a.html"));
  ASSERT_NE(html.find("<section class=\"annotation\">"), std::string::npos);
  const std::string loop = line_with(html, ">kernels.c:" + std::to_string(daxpy_line()) + "<");
  EXPECT_NE(loop.find(">100.0%<"), std::string::npos) << loop;
  EXPECT_NE(loop.find(">4.01 k<"), std::string::npos) << loop;
  const std::string fma = line_with(html, "vfmadd213pd ymm");
  EXPECT_NE(fma.find(">4.00 k<"), std::string::npos) << fma;
  EXPECT_NE(fma.find("class=\"insn\""), std::string::npos) << fma;

  auto plain = sb.roofprof({"run", "-q", "--backend", "emul", "--no-cache-sim", "-r", "daxpy", "-o", "p.json", "--",
                            fixture("emul_kernels_O3_avx2_fma"), "counts"});
  ASSERT_EQ(plain.exit_code(), 0) << plain.diag();
  ASSERT_EQ(sb.roofprof({"report", "p.json", "--html", "p.html"}).exit_code(), 0);
  EXPECT_EQ(read_text(sb.path("p.html")).find("class=\"annotation\""), std::string::npos);
}

// With cache simulation each instruction also gets the traffic below L1 that its accesses caused
// in the simulator; over the region's instructions it adds up to the region's, level by level.
TEST(Annotate, SimulatedTrafficPerInstructionAddsUpToTheRegion) {
  Sandbox sb;
  // The host's caches (sysfs); x and y (768 KiB) are evicted from L1 and L2 before the call.
  auto run = sb.roofprof({"run", "-q", "--backend", "emul", "--annotate", "-r", "daxpy", "--",
                          fixture("emul_kernels_O3_avx2_fma"), "cache", "daxpy", "32768", "8388608"});
  ASSERT_EQ(run.exit_code(), 0) << run.diag();
  json reg = region(load_result(run), "daxpy");
  std::map<std::string, std::pair<double, double>> sum;
  for (const auto& a : reg["annotation"])
    for (const auto& [level, b] : a["traffic"].items()) {
      sum[level].first += b["read"].get<double>();
      sum[level].second += b["write"].get<double>();
    }
  ASSERT_GE(sum.size(), 2u) << reg.dump().substr(0, 3000);  // L2 ... DRAM
  for (const auto& [level, rw] : sum) {
    EXPECT_EQ(rw.first, reg["bytes"][level]["read"].get<double>()) << level;
    EXPECT_EQ(rw.second, reg["bytes"][level]["write"].get<double>()) << level;
  }
  EXPECT_GT(sum["L2"].first, 16 * 32768 * 0.9);  // x and y come back from below L1
  auto ann = sb.roofprof({"annotate", "roofprof.json", "daxpy"});
  ASSERT_EQ(ann.exit_code(), 0) << ann.diag();
  EXPECT_NE(ann.out.find("DRAM r+w"), std::string::npos) << ann.out;
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
