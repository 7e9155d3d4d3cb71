// The HTML report laid out by a real browser. Headless Chromium loads the page at
// 1400 px with a checking script appended (the page itself is unchanged) and --dump-dom gives
// back what the script measured after layout: the labels' boxes as drawn (rotated roof labels
// included) must not overlap, nothing may be wider than 1400 px, each q1..q3 bar must reach
// its marker, and a result without flops must show its time chart instead of an empty plot.
#include "harness.hpp"

namespace it {
namespace {

const std::string kChromium = "/usr/bin/chromium";

// Measures the laid-out page; writes the answer, URI-encoded JSON, into <pre id="check">.
const char* kCheckScript = R"JS(<script>
(function () {
  function poly(el) {
    var b = el.getBBox(), m = el.getCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(function (p) { return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f]; });
  }
  function range(pts, ax) {
    var lo = 1e9, hi = -1e9;
    pts.forEach(function (p) { var d = p[0] * ax[0] + p[1] * ax[1]; lo = Math.min(lo, d); hi = Math.max(hi, d); });
    return [lo, hi];
  }
  // Separating axes of two convex quadrilaterals; touching within 0.5 px is not overlapping.
  function overlap(p, q) {
    for (var k = 0; k < 2; k++) {
      var s = k ? q : p;
      for (var i = 0; i < 4; i++) {
        var u = s[i], v = s[(i + 1) % 4], n = Math.hypot(v[0] - u[0], v[1] - u[1]);
        if (n === 0) continue;
        var ax = [(v[1] - u[1]) / n, (u[0] - v[0]) / n], a = range(p, ax), b = range(q, ax);
        if (a[1] <= b[0] + 0.5 || b[1] <= a[0] + 0.5) return false;
      }
    }
    return true;
  }
  var out = {labels: 0, point_labels: 0, sub_labels: 0, overlaps: [], widest: 0, bars: 0, bars_off: 0};
  var labels = Array.prototype.slice.call(
    document.querySelectorAll('svg.roofline text.roof-label, svg.roofline text.point-label, svg.roofline text.point-sublabel'));
  var polys = labels.map(poly);
  out.labels = labels.length;
  out.point_labels = document.querySelectorAll('svg.roofline text.point-label').length;
  out.sub_labels = document.querySelectorAll('svg.roofline text.point-sublabel').length;
  for (var i = 0; i < labels.length; i++)
    for (var j = i + 1; j < labels.length; j++)
      if (overlap(polys[i], polys[j])) out.overlaps.push(labels[i].textContent + ' / ' + labels[j].textContent);
  document.querySelectorAll('body *').forEach(function (el) {
    out.widest = Math.max(out.widest, el.getBoundingClientRect().right);
  });
  out.scroll_width = document.documentElement.scrollWidth;
  out.table_width = document.querySelector('table.sortable').getBoundingClientRect().width;
  out.roofline = document.querySelectorAll('svg.roofline').length;
  out.time_chart = document.querySelectorAll('svg.time-chart').length;
  out.time_bars = document.querySelectorAll('svg.time-chart rect.time-bar').length;
  out.unplotted = document.querySelectorAll('ul.unplotted li').length;
  document.querySelectorAll('g.point').forEach(function (g) {
    var vertical = Array.prototype.slice.call(g.querySelectorAll('line.bar')).filter(function (l) {
      return l.x1.baseVal.value === l.x2.baseVal.value;
    });
    if (!vertical.length) return;
    out.bars++;
    var m = g.querySelector('.marker').getBBox(), cx = m.x + m.width / 2, cy = m.y + m.height / 2;
    var lo = 1e9, hi = -1e9, x_ok = false;
    vertical.forEach(function (l) {
      var y1 = l.y1.baseVal.value, y2 = l.y2.baseVal.value;
      if (Math.abs(l.x1.baseVal.value - cx) < 0.6) { lo = Math.min(lo, y1, y2); hi = Math.max(hi, y1, y2); x_ok = true; }
    });
    if (!x_ok || cy < lo - 0.6 || cy > hi + 0.6) out.bars_off++;
  });
  var pre = document.createElement('pre');
  pre.id = 'check';
  pre.textContent = encodeURIComponent(JSON.stringify(out));
  document.body.appendChild(pre);
})();
</script>
)JS";

std::string uri_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The page `html` of the sandbox, laid out at 1400 px: what the check script measured.
json layout_of(Sandbox& sb, const std::string& html) {
  std::string page = read_text(sb.path(html));
  size_t end = page.rfind("</body>");
  EXPECT_NE(end, std::string::npos);
  page.insert(end, kCheckScript);
  write_text(sb.path("checked-" + html), page);
  RunOptions ro;
  ro.timeout = 60s;
  ro.env["HOME"] = sb.path("home").string();
  auto dom = sb.run({kChromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--user-data-dir=" + sb.path("chromium-profile").string(), "--window-size=1400,900",
                     "--dump-dom", "file://" + sb.path("checked-" + html).string()},
                    ro);
  size_t open = dom.out.find("<pre id=\"check\">");
  if (open == std::string::npos) {
    ADD_FAILURE() << "the check script left no answer: " << dom.diag();
    return json::object();
  }
  open += std::string("<pre id=\"check\">").size();
  return json::parse(uri_decode(dom.out.substr(open, dom.out.find("</pre>", open) - open)));
}

void write_json(Sandbox& sb, const std::string& name, const json& doc) { write_text(sb.path(name), doc.dump(1)); }

// kernels.json with every region's flops and bytes unknown: times only.
json time_only_result() {
  json doc = json::parse(read_text(source_path("tests/fixtures/report/kernels.json")));
  for (auto& r : doc["regions"]) {
    r["flops"] = nullptr;
    r["flops_by_class"] = json::object();
    r["bytes"] = json::object();
    r["sources"].erase("flops");
    r["sources"].erase("bytes");
  }
  return doc;
}

// Twelve regions with long names on nearly one spot, and a region grouped by its two callers
// next to them: every label wants the same place.
json crowded_result() {
  json doc = json::parse(read_text(source_path("tests/fixtures/report/kernels.json")));
  json base = doc["regions"][0];  // daxpy_
  json regions = json::array();
  for (int i = 0; i < 12; ++i) {
    json r = base;
    r["name"] = r["spec"] = "LAMMPS_NS::PairLJCut::compute_kernel_" + std::to_string(i);
    r["time_s"] = base["time_s"].get<double>() * (1 + 0.01 * i);
    regions.push_back(r);
  }
  json called = base;
  called["name"] = called["spec"] = "LAMMPS_NS::Neighbor::build";
  json g = json::object();
  g["params"] = json::object();
  g["counters"] = json::object();
  g["expected_work"] = nullptr;
  g["time_per_call_s"] = base["time_per_call_s"];
  g["calls"] = base["calls"].get<int>() / 2;
  g["time_s"] = base["time_s"].get<double>() / 2;
  g["flops"] = base["flops"].get<double>() / 2;
  g["bytes"] = base["bytes"];
  for (auto& [level, b] : g["bytes"].items()) b = {{"read", b["read"].get<double>() / 2}, {"write", b["write"].get<double>() / 2}};
  for (const char* caller : {"LAMMPS_NS::Verlet::run (verlet.cpp:310)", "LAMMPS_NS::Verlet::setup (verlet.cpp:120)"}) {
    g["key"] = std::string("<- ") + caller;
    g["call_path"] = json::array({caller});
    called["groups"].push_back(g);
  }
  regions.push_back(called);
  doc["regions"] = regions;
  return doc;
}

TEST(ReportViews, TimeOnlyHtmlShowsATimeChartAndFitsTheWindow) {
  if (!fs::exists(kChromium)) GTEST_SKIP() << "headless Chromium is not installed (scripts/install-deps.sh installs it)";
  Sandbox sb;
  write_json(sb, "t.json", time_only_result());
  auto r = sb.roofprof({"report", "t.json", "--ceilings", source_path("tests/fixtures/report/ceilings.json"),
                        "--html", "t.html", "--no-plot"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json c = layout_of(sb, "t.html");
  EXPECT_EQ(c.value("roofline", -1), 0) << c;
  EXPECT_EQ(c.value("time_chart", -1), 1) << c;
  EXPECT_EQ(c.value("time_bars", -1), 6) << c;  // six regions, each timed
  EXPECT_EQ(c.value("unplotted", -1), 6) << c;  // each: W not measured
  EXPECT_LE(c.value("scroll_width", 1e9), 1400) << c;
  EXPECT_LE(c.value("widest", 1e9), 1400) << c;
  EXPECT_LE(c.value("table_width", 1e9), 1400 - 48) << c;
}

TEST(ReportViews, CrowdedPointsGetLabelsThatDoNotOverlapAndBarsOnTheirPoints) {
  if (!fs::exists(kChromium)) GTEST_SKIP() << "headless Chromium is not installed (scripts/install-deps.sh installs it)";
  Sandbox sb;
  write_json(sb, "c.json", crowded_result());
  auto r = sb.roofprof({"report", "c.json", "--ceilings", source_path("tests/fixtures/report/ceilings.json"),
                        "--html", "c.html", "--no-plot"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json c = layout_of(sb, "c.html");
  EXPECT_EQ(c.value("roofline", -1), 1) << c;
  EXPECT_EQ(c.value("time_chart", -1), 0) << c;
  EXPECT_EQ(c["overlaps"], json::array()) << c;
  // The roofs' labels and some of the points' (the rest are left out, with a note).
  EXPECT_GE(c.value("point_labels", 0), 3) << c;
  EXPECT_GE(c.value("sub_labels", 0), 1) << c;   // a caller under its region
  EXPECT_GE(c.value("labels", 0), c.value("point_labels", 0) + 5) << c;
  EXPECT_GE(c.value("bars", 0), 13) << c;        // 12 regions and 2 caller groups, 2+ calls each
  EXPECT_EQ(c.value("bars_off", -1), 0) << c;
  EXPECT_LE(c.value("scroll_width", 1e9), 1400) << c;
  EXPECT_LE(c.value("widest", 1e9), 1400) << c;
  const std::string html = read_text(sb.path("c.html"));
  EXPECT_NE(html.find("&lt;- LAMMPS_NS::Verlet::run (verlet.cpp:310)"), std::string::npos);
}

}  // namespace
}  // namespace it
