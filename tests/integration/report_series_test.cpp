// Series by problem size, end to end: a program calling dgemm_ on sizes 100..1000 is traced and
// reported; its calls come out as one group per m,n,k with the expected work filled.
#include <fmt/format.h>

#include "harness.hpp"

namespace it {
namespace {

TEST(ReportSeries, DgemmSizesAreGroupsWithExpectedWork) {
  Sandbox sb;
  RunOptions ro;
  ro.env["OPENBLAS_NUM_THREADS"] = "1";
  auto r = sb.roofprof({"run", "-q", "--backend", "time", "--region", "dgemm_", "-o", "s.json",
                        "--", fixture("report_dgemm_sizes")},
                       ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r, "s.json"), "dgemm_");
  ASSERT_TRUE(reg.contains("groups")) << reg.dump();
  ASSERT_EQ(reg["groups"].size(), 10u) << reg.dump();
  for (const auto& g : reg["groups"]) {
    double n = g["params"]["n"].get<double>();
    EXPECT_EQ(g["key"], fmt::format("m={0},n={0},k={0}", n)) << g.dump();
    EXPECT_EQ(g["calls"], 1);
    EXPECT_DOUBLE_EQ(g["expected_work"].get<double>(), 2 * n * n * n) << g.dump();
  }

  auto rep = sb.roofprof({"report", "s.json", "--no-plot"});
  ASSERT_EQ(rep.exit_code(), 0) << rep.diag();
  EXPECT_NE(rep.out.find("expected"), std::string::npos) << rep.out;
  for (int n = 100; n <= 1000; n += 100) {
    std::string key = fmt::format("m={0},n={0},k={0}", n);
    size_t at = rep.out.find("  " + key + " ");
    ASSERT_NE(at, std::string::npos) << key << "\n" << rep.out;
    // The expected-work cell of the row: 2 n^3 flops.
    std::string row = rep.out.substr(at, rep.out.find('\n', at) - at);
    EXPECT_NE(row.find(n == 100 ? "2.00 M" : n == 1000 ? "2.00 G" : " "), std::string::npos)
        << row;
  }
}

// With emulation (small sizes to stay fast), every size is a point of one series.
TEST(ReportSeries, EmulatedSizesArePointsOfOneSeries) {
  Sandbox sb;
  RunOptions ro;
  ro.env["OPENBLAS_NUM_THREADS"] = "1";
  ro.timeout = 120s;
  auto r = sb.roofprof({"run", "-q", "--backend", "emul", "--region", "dgemm_", "-o", "e.json",
                        "--", fixture("report_dgemm_sizes"), "1", "10"},
                       ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  auto rep = sb.roofprof({"report", "e.json", "--json", "-"});
  ASSERT_EQ(rep.exit_code(), 0) << rep.diag();
  json doc = json::parse(rep.out);
  int points = 0;
  for (const auto& row : doc["rows"])
    if (!row["group"].is_null() && row["plot"]["y"].is_number() && row["intensity"].is_number())
      ++points;
  EXPECT_EQ(points, 10) << rep.out;
  auto svg = sb.roofprof({"report", "e.json", "--svg", "e.svg"});
  ASSERT_EQ(svg.exit_code(), 0) << svg.diag();
  std::string text = read_text(svg.file("e.svg"));
  size_t markers = 0;
  for (size_t p = 0; (p = text.find("class=\"marker\"", p)) != std::string::npos; ++p) ++markers;
  EXPECT_EQ(markers, 10u);
  EXPECT_NE(text.find("class=\"link series\""), std::string::npos);
}

}  // namespace
}  // namespace it
