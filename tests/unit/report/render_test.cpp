// Structure of the SVG, HTML and CSV outputs (the golden tests cover the terminal).
#include <gtest/gtest.h>

#include "report/export.hpp"
#include "report/html.hpp"
#include "report/svg.hpp"
#include "tests/unit/report/model_helpers.hpp"
#include "tests/unit/report/xml_check.hpp"

namespace roofprof::report {
namespace {

using testing::Element;
using testing::fixture_run;

size_t count(const std::vector<Element>& els, const std::string& name, const std::string& cls) {
  size_t n = 0;
  for (const auto& e : els) n += e.name == name && e.has_class(cls);
  return n;
}
size_t count_class(const std::vector<Element>& els, const std::string& cls) {
  size_t n = 0;
  for (const auto& e : els) n += e.has_class(cls);
  return n;
}

TEST(XmlCheck, CatchesMalformedDocuments) {
  EXPECT_EQ(testing::check_xml("<a><b x=\"1\"/>t &amp; u</a>"), "");
  EXPECT_NE(testing::check_xml("<a><b></a>"), "");
  EXPECT_NE(testing::check_xml("<a x=1></a>"), "");
  EXPECT_NE(testing::check_xml("<a>x & y</a>"), "");
  EXPECT_NE(testing::check_xml("<a>"), "");
  EXPECT_NE(testing::check_xml("<a x=\"1\" x=\"2\"></a>"), "");
}

TEST(Svg, OneMarkerPerRegionAndOneLinePerRoof) {
  auto r = testing::report_of(fixture_run("kernels.json"), testing::with_ceilings());
  Figure f = build_figure(r->model);
  std::string svg = render_svg(f);
  std::vector<Element> els;
  ASSERT_EQ(testing::check_xml(svg, &els), "");
  EXPECT_EQ(els.front().name, "svg");
  EXPECT_EQ(els.front().attrs.at("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_EQ(count_class(els, "marker"), 6u);  // six regions
  EXPECT_EQ(count(els, "line", "roof"), r->model.roofs->roofs.size());
  EXPECT_EQ(count(els, "line", "roof"), 9u);
  EXPECT_EQ(count(els, "line", "theoretical"), 1u);
  EXPECT_EQ(count(els, "line", "primary"), 2u);
  EXPECT_EQ(count_class(els, "ridge"), 1u);
  // Nothing outside the file: no href, no src, no url().
  EXPECT_EQ(svg.find("href"), std::string::npos);
  EXPECT_EQ(svg.find("url("), std::string::npos);
}

TEST(Svg, SeriesAndCompareLinks) {
  auto r = testing::report_of({{"openblas.json", fixture_run("dgemm-openblas.json")},
                               {"naive.json", fixture_run("dgemm-naive.json")}},
                              testing::with_ceilings(), true);
  std::vector<Element> els;
  ASSERT_EQ(testing::check_xml(render_svg(build_figure(r->model)), &els), "");
  EXPECT_EQ(count_class(els, "marker"), 20u);              // 10 sizes x 2 files
  EXPECT_EQ(count(els, "polyline", "series"), 2u);         // one series per file
  EXPECT_EQ(count(els, "polyline", "compare"), 10u);       // one dashed line per size
  EXPECT_EQ(count(els, "rect", "marker") + count(els, "circle", "marker"), 20u);  // two shapes
  EXPECT_GE(count(els, "line", "bar"), 20u);               // quartile bars with caps
}

TEST(Svg, NoCeilingsMeansNoRoofs) {
  auto r = testing::report_of(fixture_run("kernels.json"));
  std::vector<Element> els;
  ASSERT_EQ(testing::check_xml(render_svg(build_figure(r->model)), &els), "");
  EXPECT_EQ(count(els, "line", "roof"), 0u);
  EXPECT_EQ(count_class(els, "marker"), 6u);
}

TEST(Svg, HierarchicalHasOnePointPerLevel) {
  View v;
  v.hierarchical = true;
  auto r = testing::report_of(fixture_run("kernels.json"), testing::with_ceilings(v));
  Figure f = build_figure(r->model);
  EXPECT_EQ(f.markers.size(), 24u);  // 6 regions x 4 levels
  EXPECT_EQ(f.links.size(), 6u);
}

TEST(Html, SelfContainedAndWellFormed) {
  auto r = testing::report_of(fixture_run("dgemm-openblas.json"), testing::with_ceilings());
  std::string html = render_html(r->model, build_figure(r->model));
  std::vector<Element> els;
  ASSERT_EQ(testing::check_xml(html.substr(html.find("<html")), &els, true), "");
  for (const char* outside : {"http:", "https:", "//", "src=", "href=", "url(", "@import",
                              "fetch(", "XMLHttpRequest", "<link", "<iframe", "<img"})
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  EXPECT_EQ(count(els, "table", "sortable"), 1u);
  EXPECT_EQ(count(els, "tr", "group"), 10u);
  EXPECT_EQ(count_class(els, "marker"), 10u);
  size_t scripts = 0;
  for (const auto& e : els) scripts += e.name == "script";
  EXPECT_EQ(scripts, 1u);
}

TEST(Csv, TidyRowsWithParamsAndBlanksForUnknown) {
  result::Run run = fixture_run("dgemm-openblas.json");
  run.regions[0].groups[3].flops.reset();
  auto r = testing::report_of(run, testing::with_ceilings());
  std::string csv = render_csv(r->model);
  auto first_line = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(first_line.rfind("input,region,kind,group,param_k,param_m,param_n,calls,time_s,", 0),
            0u)
      << first_line;
  size_t lines = 0, fields_first = 0;
  for (size_t p = 0; p < csv.size(); p = csv.find('\n', p) + 1) ++lines;
  EXPECT_EQ(lines, 12u);  // header, region, 10 groups
  // Quoted keys, so that every row has the header's number of fields.
  for (char c : first_line) fields_first += c == ',';
  size_t start = csv.find('\n') + 1;
  while (start < csv.size()) {
    std::string line = csv.substr(start, csv.find('\n', start) - start);
    size_t commas = 0;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      commas += c == ',' && !quoted;
    }
    EXPECT_EQ(commas, fields_first) << line;
    start = csv.find('\n', start) + 1;
  }
  EXPECT_NE(csv.find("\"m=1000,n=1000,k=1000\""), std::string::npos);
  EXPECT_NE(csv.find(",,"), std::string::npos);  // the unknown flops
}

TEST(Json, RowsRoofsAndNulls) {
  auto r = testing::report_of(fixture_run("kernels.json"));
  auto j = report_json(r->model);
  EXPECT_EQ(j["format"], "roofprof.report/1");
  EXPECT_TRUE(j["roofs"].is_null());
  EXPECT_EQ(j["rows"].size(), 6u);
  EXPECT_TRUE(j["rows"][0]["bound"].is_null());
  EXPECT_TRUE(j["rows"][0]["intensity"].is_number());
  auto with = testing::report_of(fixture_run("kernels.json"), testing::with_ceilings());
  auto k = report_json(with->model);
  EXPECT_EQ(k["roofs"]["lines"].size(), 9u);
  EXPECT_EQ(k["rows"][0]["bound_by"], "memory");
}

}  // namespace
}  // namespace roofprof::report
