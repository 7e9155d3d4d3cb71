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

// A ceilings file whose lines contradict each other (as a real cached file did: avx2
// fma on 2 threads at 2.77 GFlop/s, below scalar's; DRAM copy and triad on 2 threads below 1
// thread's) is flagged when the report uses it: one warning per line on stderr, and the roof
// drawn from a flagged line says so. The consistent fixture draws no flag.
TEST(ReportCli, InconsistentCeilingsFileIsFlagged) {
  Sandbox sb;
  auto plain = sb.roofprof({"report", report_fixture("kernels.json"), "--ceilings", report_fixture("ceilings.json"),
                            "--json", "plain.json", "--no-plot"});
  ASSERT_EQ(plain.exit_code(), 0) << plain.diag();
  EXPECT_EQ(plain.err.find("flagged"), std::string::npos) << plain.diag();
  EXPECT_EQ(read_text(plain.file("plain.json")).find("FLAGGED"), std::string::npos);

  json c = json::parse(read_text(report_fixture("ceilings.json")));
  auto set = [](json& e, const char* key, double v) {
    e[key] = v;
    e[std::string(key) + "_min"] = v;
    e[std::string(key) + "_max"] = v;
  };
  for (auto& e : c["compute"])
    if (e["isa"] == "avx2" && e["precision"] == "dp" && e["op"] == "fma" && e["threads"] == 2) set(e, "gflops", 2.77);
  for (auto& e : c["bandwidth"])
    if (e["level"] == "DRAM" && e["threads"] == 2 && (e["kind"] == "copy" || e["kind"] == "triad")) {
      const bool copy = e["kind"] == "copy";
      set(e, "gbytes_per_s", copy ? 3.0 : 4.0);
      e["read_gbytes_per_s"] = copy ? 1.5 : 3.0;
      e["write_gbytes_per_s"] = copy ? 1.5 : 1.0;
    }
  write_text(sb.path("bad-roofs.json"), c.dump());
  auto r = sb.roofprof({"report", report_fixture("kernels.json"), "--ceilings", "bad-roofs.json", "--json", "r.json",
                        "--no-plot"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.err.find("roofprof: warning: ceilings bad-roofs.json: flagged avx2 dp fma, 2 threads: below"),
            std::string::npos)
      << r.diag();
  EXPECT_NE(r.err.find("flagged DRAM copy, 2 threads: below fewer threads' DRAM copy, 1 thread (6.4 GB/s)"),
            std::string::npos)
      << r.diag();
  EXPECT_NE(r.err.find("flagged DRAM triad, 2 threads"), std::string::npos) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 3u) << r.diag();
  const json doc = json::parse(read_text(r.file("r.json")));
  bool dram_flagged = false;
  for (const auto& l : doc["roofs"]["lines"])
    if (l.dump().find("DRAM triad, 2 threads FLAGGED") != std::string::npos) dram_flagged = true;
  EXPECT_TRUE(dram_flagged) << doc["roofs"].dump();
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
