// The report's views: label placement, what is not plotted and why, labels by region with the
// caller or size under them, quartile bars that reach their point, the time chart of a result
// without flops, and the run summary's groups.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "report/html.hpp"
#include "report/label_layout.hpp"
#include "report/summary.hpp"
#include "report/svg.hpp"
#include "tests/unit/report/golden.hpp"
#include "tests/unit/report/model_helpers.hpp"
#include "tests/unit/report/sample_runs.hpp"
#include "tests/unit/report/xml_check.hpp"

namespace roofprof::report {
namespace {

using testing::Element;

result::Region measured(std::string name, uint64_t calls, double time_s, std::optional<double> flops,
                        std::optional<double> dram_bytes) {
  result::Region r = samples::region(std::move(name), "function", calls, time_s);
  r.flops = flops;
  if (dram_bytes) r.bytes["DRAM"] = result::Bytes{*dram_bytes, 0.0};
  if (calls > 1) r.time_per_call_s = result::Stats{time_s / calls, time_s / calls, time_s / calls,
                                                   time_s / calls, time_s / calls};
  return r;
}

result::Run run_of(std::vector<result::Region> regions) {
  result::Run run;
  run.command = {"./app"};
  run.exit_status = 0;
  run.backend = "emul";
  run.scope = "process";
  run.wall_time_s = 1;
  run.regions = std::move(regions);
  return run;
}

result::Group group(std::string key, uint64_t calls, double time_s, double flops, double bytes,
                    std::vector<std::string> call_path = {}) {
  result::Group g;
  g.key = std::move(key);
  g.calls = calls;
  g.time_s = time_s;
  g.flops = flops;
  g.bytes["DRAM"] = result::Bytes{bytes, 0.0};
  g.call_path = std::move(call_path);
  return g;
}

std::vector<std::string> all(const std::string& text, const std::string& pattern) {
  std::vector<std::string> out;
  std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(LabelLayout, BoxesOverlapByTheirRotatedShape) {
  Box a{0, 0, 10, 2, 0};
  EXPECT_TRUE(overlap(a, {15, 0, 10, 2, 0}));
  EXPECT_FALSE(overlap(a, {25, 0, 5, 2, 0}));   // touching is not overlapping
  EXPECT_FALSE(overlap(a, {0, 5, 10, 2, 0}));
  // A bar rotated by 45 degrees whose bounding box covers a's corner, but not a itself.
  Box diag{14, 6, 6, 1, -45};
  EXPECT_FALSE(overlap(a, diag));
  EXPECT_TRUE(overlap(a, {14, 6, 6, 1, 45}));   // the other diagonal crosses a
}

TEST(LabelLayout, TakesTheFirstFreeCandidateInsideTheArea) {
  LabelLayout l(0, 0, 100, 100);
  l.take({50, 50, 5, 5, 0});
  EXPECT_EQ(l.place({{50, 50, 2, 2, 0}, {98, 50, 4, 2, 0}, {80, 50, 4, 2, 0}}), std::optional<size_t>(2));
  EXPECT_FALSE(l.place({{80, 50, 2, 2, 0}}).has_value());  // now taken
}

TEST(LabelLayout, TextWidthGrowsWithTheTextAndClipsWithAnEllipsis) {
  EXPECT_GT(text_width("dgemm_", 10), text_width("dgemm", 10));
  EXPECT_DOUBLE_EQ(text_width("ab", 20), 2 * text_width("ab", 10));
  const std::string name = "LAMMPS_NS::PairLJCut::compute(int, int)";
  EXPECT_EQ(clip_to_width(name, 9, 1000), name);
  std::string cut = clip_to_width(name, 9, 60);
  EXPECT_LE(text_width(cut, 9), 60);
  EXPECT_EQ(cut.substr(cut.size() - 3), "\xE2\x80\xA6");
  EXPECT_EQ(name.rfind(cut.substr(0, cut.size() - 3), 0), 0u);
}

TEST(Figure, SaysWhyEachRowIsNotPlotted) {
  std::vector<result::Region> rs = {
      measured("plotted", 2, 1.0, 4e9, 1e9),   measured("no_w", 2, 1.0, std::nullopt, 1e9),
      measured("zero_w", 2, 1.0, 0.0, 1e9),    measured("zero_q", 2, 1.0, 4e9, 0.0),
      measured("no_q", 2, 1.0, 4e9, std::nullopt), samples::region("idle", "function", 0, 0)};
  result::Region untimed = measured("untimed", 2, 1.0, 4e9, 1e9);
  untimed.time_s.reset();
  rs.push_back(untimed);
  auto r = testing::report_of(run_of(rs));
  Figure f = build_figure(r->model);
  ASSERT_EQ(f.markers.size(), 1u);
  std::vector<std::string> why(f.unplotted.begin(), f.unplotted.end());
  std::sort(why.begin(), why.end());
  EXPECT_EQ(why, (std::vector<std::string>{
                     "idle: never entered",
                     "no_q: bytes at DRAM not measured",
                     "no_w: W not measured (no backend counted flops)",
                     "untimed: time not measured",
                     "zero_q: 0 B at DRAM (I = W/Q is infinite)",
                     "zero_w: W = 0 flops (P = 0 has no place on log axes)",
                 }));
  EXPECT_NE(render_svg(f).find("not plotted: "), std::string::npos);
}

TEST(Figure, PointsAreLabelledByRegionWithTheCallerOrSizeUnder) {
  result::Region solve = measured("solve", 8, 2.0, 8e9, 1e9);
  solve.groups = {group("<- phase_a (a.c:12) <- main (a.c:27)", 3, 1.0, 3e9, 5e8, {"phase_a (a.c:12)", "main (a.c:27)"}),
                  group("<- phase_b (a.c:19) <- main (a.c:28)", 5, 1.0, 5e9, 5e8, {"phase_b (a.c:19)", "main (a.c:28)"})};
  result::Region gemm = measured("gemm_kernel", 2, 2.0, 2e9, 1e8);
  gemm.groups = {group("m=100,n=100,k=100", 1, 0.5, 2e6, 1e5), group("m=200,n=200,k=200", 1, 1.5, 1.6e7, 4e5)};
  auto r = testing::report_of(run_of({solve, gemm}));
  Figure f = build_figure(r->model);
  std::map<std::string, std::pair<std::string, std::string>> labels;
  for (const auto& mk : f.markers) labels[mk.subject] = {mk.short_label, mk.sub_label};
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(labels["solve <- phase_a (a.c:12) <- main (a.c:27)"], P("solve", "<- phase_a (a.c:12)"));
  EXPECT_EQ(labels["solve <- phase_b (a.c:19) <- main (a.c:28)"], P("solve", "<- phase_b (a.c:19)"));
  // A size series names its region once, at its first point.
  EXPECT_EQ(labels["gemm_kernel m=100,n=100,k=100"], P("gemm_kernel", "100"));
  EXPECT_EQ(labels["gemm_kernel m=200,n=200,k=200"], P("", "200"));
  // An ungrouped region: its name.
  auto plain = testing::report_of(run_of({measured("daxpy", 2, 1.0, 1e9, 1e9)}));
  EXPECT_EQ(build_figure(plain->model).markers.at(0).short_label, "daxpy");
}

// Many regions on one spot: every label that is drawn has a place of its own, the others are
// counted in a note, and no two drawn labels share their box.
TEST(Svg, CoincidentPointsGetLabelsThatDoNotOverlap) {
  std::vector<result::Region> rs;
  for (int i = 0; i < 40; ++i)
    rs.push_back(measured("kernel_number_" + std::to_string(i), 2, 1.0 + 0.001 * i, 4e9, 1e9));
  auto r = testing::report_of(run_of(rs), testing::with_ceilings());
  Figure f = build_figure(r->model);
  std::string svg = render_svg(f);
  ASSERT_EQ(testing::check_xml(svg), "");
  auto xs = all(svg, "class=\"point-label\" x=\"([0-9.]+)\"");
  auto ys = all(svg, "class=\"point-label\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
  auto texts = all(svg, "class=\"point-label\" x=\"[0-9.]+\" y=\"[0-9.]+\">([^<]+)<");
  ASSERT_EQ(xs.size(), ys.size());
  ASSERT_EQ(xs.size(), texts.size());
  ASSERT_GE(xs.size(), 4u);  // the places around one marker
  ASSERT_LT(xs.size(), 40u);
  std::vector<Box> boxes;
  for (size_t i = 0; i < xs.size(); ++i)
    boxes.push_back(text_box(texts[i], std::stod(xs[i]), std::stod(ys[i]), 9));
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j)
      EXPECT_FALSE(overlap(boxes[i], boxes[j])) << i << " " << j;
  EXPECT_NE(svg.find(fmt::format("{} point labels left out", 40 - xs.size())), std::string::npos);
}

// The marker is P over all the time; one slow call puts it below its calls' q1..q3 bar: a
// dotted stem joins it to the bar's lower end.
TEST(Svg, QuartileBarReachesItsPointThroughAStem) {
  result::Region r = measured("skewed", 10, 1.0, 1e10, 1e9);
  r.time_per_call_s = result::Stats{0.01, 0.01, 0.011, 0.012, 0.9};  // total 1 s: mean 0.1 s
  auto rep = testing::report_of(run_of({r}));
  Figure f = build_figure(rep->model);
  ASSERT_EQ(f.markers.size(), 1u);
  ASSERT_TRUE(f.markers[0].y_lo.has_value());
  ASSERT_LT(f.markers[0].y, *f.markers[0].y_lo);  // below the bar
  std::string svg = render_svg(f);
  auto cy = all(svg, "class=\"marker\" fill=\"#[0-9a-f]+\" cx=\"[0-9.]+\" cy=\"([0-9.]+)\"");
  auto stem_y1 = all(svg, "class=\"bar stem\"[^>]* y1=\"([0-9.]+)\"");
  auto stem_y2 = all(svg, "class=\"bar stem\"[^>]* y2=\"([0-9.]+)\"");
  auto bar_y1 = all(svg, "<line class=\"bar\" [^>]* y1=\"([0-9.]+)\"");
  ASSERT_EQ(cy.size(), 1u);
  ASSERT_EQ(stem_y1.size(), 1u);
  EXPECT_EQ(stem_y1[0], cy[0]);
  EXPECT_EQ(stem_y2[0], bar_y1.at(0));  // the bar's end at q3 (the lower P)
  // A marker inside its bar has no stem.
  auto even = testing::report_of(run_of({measured("even", 10, 1.0, 1e10, 1e9)}));
  EXPECT_EQ(render_svg(build_figure(even->model)).find("stem"), std::string::npos);
}

TEST(Html, TimeOnlyResultShowsATimeChartAndWhyThereIsNoPoint) {
  result::Region a = samples::region("solve", "function", 4, 2.0);
  result::Region b = samples::region("setup", "function", 1, 0.5);
  auto r = testing::report_of(run_of({a, b}));
  Figure f = build_figure(r->model);
  std::string html = render_html(r->model, f);
  std::vector<Element> els;
  ASSERT_EQ(testing::check_xml(html.substr(html.find("<html")), &els, true), "");
  size_t charts = 0, roofline = 0, bars = 0, unplotted = 0;
  std::map<std::string, std::string> width;
  for (const auto& e : els) {
    charts += e.name == "svg" && e.has_class("time-chart");
    roofline += e.has_class("roofline");
    if (e.has_class("time-bar")) width[std::to_string(bars++)] = e.attrs.at("width");
    unplotted += e.has_class("unplotted");
  }
  EXPECT_EQ(charts, 1u);
  EXPECT_EQ(roofline, 0u);
  ASSERT_EQ(bars, 2u);
  // Linear: solve (2 s) is the longest, setup a quarter of it.
  EXPECT_NEAR(std::stod(width["1"]) / std::stod(width["0"]), 0.25, 0.01);
  EXPECT_EQ(unplotted, 1u);
  EXPECT_NE(html.find("<li>solve: W not measured (no backend counted flops)</li>"), std::string::npos);
  // A result with a point keeps the roofline.
  auto withw = testing::report_of(run_of({measured("daxpy", 2, 1.0, 1e9, 1e9)}));
  std::string html2 = render_html(withw->model, build_figure(withw->model));
  EXPECT_NE(html2.find("class=\"roofline\""), std::string::npos);
  EXPECT_EQ(html2.find("time-chart"), std::string::npos);
}

TEST(Summary, ShowsTheGroupsOfARegionAsReportDoes) {
  result::Region solve = measured("solve", 8, 2.0, 8e9, 1e9);
  solve.groups = {group("<- phase_a (a.c:12)", 3, 0.5, 3e9, 5e8, {"phase_a (a.c:12)"}),
                  group("<- phase_b (a.c:19)", 5, 1.5, 5e9, 5e8, {"phase_b (a.c:19)"})};
  solve.groups[0].time_per_call_s = result::Stats{0.1, 0.15, 0.16, 0.17, 0.2};
  std::string text = testing::capture([&](std::FILE* f) { print_summary(run_of({solve}), f); });
  EXPECT_NE(text.find("    by caller            calls   total  median/call   flops  GFlop/s\n"
                      "    <- phase_a (a.c:12)      3  500 ms       160 ms  3.00 G     6.00\n"
                      "    <- phase_b (a.c:19)      5  1.50 s            -  5.00 G     3.33\n"),
            std::string::npos)
      << text;
}

// A function an emulated MPI rank could not see (run/unseen_functions.hpp) was found: it is not
// "never found", and nothing it did not measure is printed.
TEST(Summary, AFoundFunctionWhoseCallsWereNotSeenIsNotNeverFound) {
  result::Region r = samples::region("local_work", "function", 0, 0);
  r.time_s.reset();
  r.locations = {result::Site{"/jobs/app", 0x1149, "local_work", "entry"}};
  r.calls_approximate = {"local_work is a function of app itself, whose calls ... were not measured (null)"};
  std::string text = testing::capture([&](std::FILE* f) { print_summary(run_of({r}), f); });
  EXPECT_EQ(text.find("never found"), std::string::npos) << text;
  EXPECT_NE(text.find("  local_work (function): found; its calls were not counted (below)\n"
                      "  ! calls approximate: local_work is a function of app itself"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("flops"), std::string::npos) << text;
}

}  // namespace
}  // namespace roofprof::report
