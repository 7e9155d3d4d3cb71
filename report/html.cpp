#include "report/html.hpp"

#include <fmt/format.h>

#include "report/svg.hpp"
#include "report/table.hpp"
#include "report/time_chart.hpp"

namespace roofprof::report {
namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:sans-serif;margin:24px;color:#222;background:#fff;max-width:1340px}
h1{font-size:18px;font-weight:normal;overflow-wrap:anywhere}
table{border-collapse:collapse;font-size:12px;margin-top:16px;max-width:100%}
th,td{padding:3px 6px;border-bottom:1px solid #e4e4e4;white-space:nowrap}
th{background:#f3f3f3;cursor:pointer;user-select:none;text-align:left;white-space:normal;vertical-align:bottom}
td.name{white-space:normal;overflow-wrap:anywhere;min-width:140px;max-width:300px}
td.words{white-space:normal;min-width:80px;max-width:190px}
ul.notes li,ul.unplotted li{overflow-wrap:anywhere}
th[data-dir=asc]::after{content:" \25B2"}
th[data-dir=desc]::after{content:" \25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.group td:first-child{padding-left:24px;color:#555}
ul.notes,ul.unplotted{font-size:12px;color:#444}
#tip{position:absolute;display:none;background:#fffff0;border:1px solid #999;padding:6px 8px;
font-size:12px;white-space:pre;pointer-events:none;box-shadow:2px 2px 4px rgba(0,0,0,.2)}
.point{cursor:default}
h2{font-size:15px;font-weight:normal;margin-top:28px}
table.annotation td{padding:1px 8px;border-bottom:none}
table.annotation th{cursor:default}
tr.function td{font-weight:bold;border-top:1px solid #bbb}
tr.insn td:last-child{font-family:monospace;padding-left:28px;color:#444}
table.annotation td:last-child{white-space:pre-wrap;overflow-wrap:anywhere}
p.note{font-size:12px;color:#444}
</style>
)";

// Sorting by the number behind a cell (data-v) when both have one, unknown last; tooltips
// follow the mouse over anything with data-tip (the SVG <title>s are removed so that the
// browser does not show a second one).
constexpr const char* kScript = R"(<script>
(function () {
  var tip = document.getElementById('tip');
  document.querySelectorAll('.point title').forEach(function (t) { t.remove(); });
  document.querySelectorAll('[data-tip]').forEach(function (el) {
    el.addEventListener('mousemove', function (e) {
      tip.textContent = el.getAttribute('data-tip');
      tip.style.display = 'block';
      tip.style.left = (e.pageX + 14) + 'px';
      tip.style.top = (e.pageY + 14) + 'px';
    });
    el.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  });
  document.querySelectorAll('table.sortable th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = th.closest('table').tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute('data-dir') !== 'asc';
      th.parentNode.querySelectorAll('th').forEach(function (h) { h.removeAttribute('data-dir'); });
      th.setAttribute('data-dir', asc ? 'asc' : 'desc');
      rows.sort(function (a, b) {
        var x = a.cells[col], y = b.cells[col];
        var vx = x.getAttribute('data-v'), vy = y.getAttribute('data-v');
        if (vx !== null || vy !== null) {
          if (vx === null) return 1;
          if (vy === null) return -1;
          var d = parseFloat(vx) - parseFloat(vy);
          return asc ? d : -d;
        }
        var c = x.textContent.trim().localeCompare(y.textContent.trim());
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
})();
</script>
)";

std::string table_html(const Model& m) {
  TableData t = table_data(m);
  std::string out = "<table class=\"sortable\">\n<thead><tr>";
  for (const auto& c : t.columns) out += "<th>" + xml_escape(c.header) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    out += t.group_row[r] ? "<tr class=\"group\">" : "<tr>";
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      const Cell& cell = t.rows[r][c];
      bool numeric = t.columns[c].align == TextTable::Align::Right;
      out += "<td";
      if (numeric) out += " class=\"num\"";
      else if (c == 0) out += " class=\"name\"";
      else if (t.columns[c].header == "sources" || t.columns[c].header == "flops by width") out += " class=\"words\"";
      if (cell.value) out += fmt::format(" data-v=\"{}\"", *cell.value);
      out += ">" + xml_escape(cell.text) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// The rows without a point and why, as a list under the plot (or the time chart).
std::string unplotted_html(const Figure& f) {
  if (f.unplotted.empty()) return "";
  std::string out = "<h2>Not plotted</h2>\n<ul class=\"unplotted\">\n";
  for (const auto& u : f.unplotted) out += "<li>" + xml_escape(u) + "</li>\n";
  return out + "</ul>\n";
}

std::string notes_html(const Model& m, const Figure& f) {
  std::string out = "<ul class=\"notes\">\n";
  auto item = [&](const std::string& prefix, const std::string& s) {
    out += "<li>" + xml_escape(prefix + s) + "</li>\n";
  };
  for (const auto& n : f.notes) item("", n);
  for (const auto& a : m.abnormal) item("", a);
  for (const auto& n : m.notes) item("", n);
  for (const auto& w : m.warnings) item("warning: ", w);
  return out + "</ul>\n";
}

}  // namespace

std::string render_html(const Model& m, const Figure& f, const std::vector<std::string>& sections) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<title>" + xml_escape("roofprof: " + f.title) + "</title>\n";
  out += kStyle;
  out += "</head>\n<body>\n";
  out += "<h1>" + xml_escape(m.headline) + "</h1>\n";
  // Without a single point, a roofline would be an empty frame: time by region instead.
  out += f.markers.empty() ? render_time_chart(m) : render_svg(f, SvgOptions{false});
  out += unplotted_html(f);
  out += table_html(m);
  out += notes_html(m, f);
  for (const auto& section : sections) out += section;
  out += "<div id=\"tip\"></div>\n";
  out += kScript;
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace roofprof::report
