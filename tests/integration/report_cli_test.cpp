// `roofprof report` on result files: exports, merge, compare and bad input, with the SVG
// parsed by a real XML parser (python3's xml.etree).
#include "harness.hpp"

namespace it {
namespace {

std::string report_fixture(const std::string& name) {
  return source_path("tests/fixtures/report/" + name);
}

// Counts in an SVG file by python3's XML parser: markers, roof lines, ridge points, links.
// Fails the test when the file is not well-formed XML.
std::map<std::string, int> svg_counts(Sandbox& sb, const fs::path& svg) {
  const std::string script = R"PY(
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg", root.tag
def classes(e): return e.get("class", "").split()
counts = {"marker": 0, "roof": 0, "ridge": 0, "series": 0, "compare": 0, "theoretical": 0}
for e in root.iter():
    c = classes(e)
    if "marker" in c: counts["marker"] += 1
    if e.tag == ns + "line" and "roof" in c: counts["roof"] += 1
    if e.tag == ns + "line" and "theoretical" in c: counts["theoretical"] += 1
    if "ridge" in c: counts["ridge"] += 1
    if e.tag == ns + "polyline" and "series" in c: counts["series"] += 1
    if e.tag == ns + "polyline" and "compare" in c: counts["compare"] += 1
for k, v in sorted(counts.items()): print(k, v)
)PY";
  write_text(sb.path("svg_counts.py"), script);
  auto r = sb.run({"/usr/bin/python3", sb.path("svg_counts.py").string(), svg.string()});
  EXPECT_EQ(r.exit_code(), 0) << "not well-formed XML?" << r.diag();
  std::map<std::string, int> out;
  std::istringstream in(r.out);
  std::string k;
  int v;
  while (in >> k >> v) out[k] = v;
  return out;
}

TEST(ReportCli, ExportsEveryFormat) {
  Sandbox sb;
  auto r = sb.roofprof({"report", report_fixture("kernels.json"), "--ceilings",
                        report_fixture("ceilings.json"), "--svg", "k.svg", "--html", "k.html",
                        "--csv", "k.csv", "--json", "k.json"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("bound GFlop/s"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find("Roofline: DRAM"), std::string::npos) << r.diag();  // terminal plot
  auto c = svg_counts(sb, r.file("k.svg"));
  EXPECT_EQ(c["marker"], 6);  // one per region
  json doc = json::parse(read_text(r.file("k.json")));
  EXPECT_EQ(c["roof"], int(doc["roofs"]["lines"].size()));  // one line per roof
  EXPECT_EQ(c["roof"], 9);
  EXPECT_EQ(c["ridge"], 1);
  EXPECT_EQ(doc["rows"].size(), 6u);
  std::string csv = read_text(r.file("k.csv"));
  EXPECT_EQ(lines(csv).size(), 7u);
  std::string html = read_text(r.file("k.html"));
  EXPECT_EQ(html.find("http"), std::string::npos);  // references nothing outside itself
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST(ReportCli, CsvToStdoutAlone) {
  Sandbox sb;
  auto r = sb.roofprof({"report", report_fixture("dgemm-openblas.json"), "--csv", "-"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 12u) << r.out;
  EXPECT_EQ(ls[0].rfind("input,region,kind,group,param_k,param_m,param_n,calls", 0), 0u);
  EXPECT_NE(ls[2].find("\"m=100,n=100,k=100\""), std::string::npos) << ls[2];
}

TEST(ReportCli, SeveralFilesMergeAndSaySo) {
  Sandbox sb;
  auto r = sb.roofprof({"report", report_fixture("kernels.json"),
                        report_fixture("kernels-run2.json"), report_fixture("kernels-run3.json"),
                        "--no-plot"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("3 result files merged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("are summed per region"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("~"), std::string::npos) << r.out;  // approximate merged quartiles
}

TEST(ReportCli, CompareShowsRatiosAndDashedLines) {
  Sandbox sb;
  auto r = sb.roofprof({"report", "--compare", report_fixture("dgemm-openblas.json"),
                        report_fixture("dgemm-naive.json"), "--ceilings",
                        report_fixture("ceilings.json"), "--svg", "c.svg"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("time B/A"), std::string::npos) << r.out;
  auto c = svg_counts(sb, r.file("c.svg"));
  EXPECT_EQ(c["marker"], 20);
  EXPECT_EQ(c["compare"], 10);  // the same size across the two files
  EXPECT_EQ(c["series"], 2);    // each file's sizes joined
}

TEST(ReportCli, ReadOnlyAndWriteOnlyRooflines) {
  Sandbox sb;
  for (const char* rw : {"read", "write"}) {
    auto r = sb.roofprof({"report", report_fixture("kernels.json"), "--ceilings",
                          report_fixture("ceilings.json"), "--rw", rw, "--svg",
                          std::string(rw) + ".svg", "--json", std::string(rw) + ".json"});
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json doc = json::parse(read_text(r.file(std::string(rw) + ".json")));
    EXPECT_EQ(doc["view"]["traffic"], rw);
    auto c = svg_counts(sb, r.file(std::string(rw) + ".svg"));
    // ddot_ writes nothing: no write-only point for it.
    EXPECT_EQ(c["marker"], std::string(rw) == "read" ? 6 : 5) << rw;
  }
}

TEST(ReportCli, BadInputIsOneLineAndExitTwo) {
  Sandbox sb;
  write_text(sb.path("bad.json"), "{\"schema\": 1}");
  const std::vector<std::vector<std::string>> cases{
      {"report", "missing.json"},
      {"report", "bad.json"},
      {"report", "--compare", report_fixture("kernels.json")},
      {"report", report_fixture("kernels.json"), "--work", "dgemm_=2*m*"},
      {"report", report_fixture("kernels.json"), "--work", "nosuch=1"},
      {"report", report_fixture("kernels.json"), "--ceilings", "bad.json"},
      {"report", report_fixture("kernels.json"), "--ceilings", report_fixture("ceilings.json"),
       "--threads", "7"},
      {"report", report_fixture("kernels.json"), "--group-by", "caller"},
      {"report", report_fixture("kernels.json"), "--level", "L4"},
      {"report", report_fixture("kernels.json"), "--svg", "/nonexistent/dir/x.svg"},
  };
  for (const auto& args : cases) {
    auto r = sb.roofprof(args);
    EXPECT_EQ(r.exit_code(), 2) << r.diag();
    EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
    EXPECT_EQ(r.err.rfind("roofprof: ", 0), 0u) << r.diag();
  }
}

}  // namespace
}  // namespace it
