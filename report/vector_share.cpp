#include "report/vector_share.hpp"

#include <algorithm>
#include <cmath>

namespace roofprof::report {
namespace {

WidthShare split_class(const std::string& cls) {
  if (cls == "x87") return {"x87", "", 0};
  auto sep = cls.find('_');
  std::string precision = cls.substr(0, sep), width = sep == std::string::npos ? "" : cls.substr(sep + 1);
  // Bits for a vector width ("256" -> "256b"); perf's classes by flop weight ("fp_x4": 128-bit
  // single and 256-bit double together) and AMD's "sp_dp" keep their names.
  if (!width.empty() && width.find_first_not_of("0123456789") == std::string::npos) width += "b";
  return {precision, width, 0};
}

}  // namespace

std::vector<WidthShare> width_shares(const std::map<std::string, double>& flops_by_class) {
  double total = 0;
  for (const auto& [cls, v] : flops_by_class) total += v > 0 ? v : 0;
  std::vector<WidthShare> out;
  if (total <= 0) return out;
  for (const auto& [cls, v] : flops_by_class) {
    if (v <= 0) continue;
    WidthShare s = split_class(cls);
    s.share = v / total;
    out.push_back(s);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.share > b.share; });
  return out;
}

std::string width_shares_text(const std::map<std::string, double>& flops_by_class, size_t most) {
  std::string out, precision;
  size_t shown = 0;
  for (const auto& s : width_shares(flops_by_class)) {
    long percent = std::lround(s.share * 100);
    if (percent < 1) break;  // sorted: the rest are smaller
    if (shown == most) return out + ", ...";
    if (!out.empty()) out += ", ";
    if (s.precision != precision) out += s.precision + (s.width.empty() ? "" : " ");
    out += s.width + " " + std::to_string(percent) + "%";
    precision = s.precision;
    ++shown;
  }
  return out.empty() ? "-" : out;
}

}  // namespace roofprof::report
