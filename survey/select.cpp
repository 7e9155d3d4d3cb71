#include "survey/select.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/error.hpp"

namespace roofprof::survey {

namespace {

// A sampled function whose CPU-dispatch variant ran under emulation instead (survey/variants.hpp)
// follows that variant, so that the table shows where the time was next to where the work was.
void keep_sampled_after_variants(std::vector<result::SurveyFunction>& fs) {
  std::map<std::pair<std::string, std::string>, size_t> sampled;  // (module, symbol) -> index
  for (size_t i = 0; i < fs.size(); ++i)
    if (!fs[i].variant_of) sampled.emplace(std::pair{fs[i].module, fs[i].symbol}, i);
  std::vector<result::SurveyFunction> out;
  std::vector<bool> placed(fs.size(), false);
  for (size_t i = 0; i < fs.size(); ++i) {
    if (placed[i]) continue;
    placed[i] = true;
    const std::optional<std::string> of = fs[i].variant_of;
    const std::string module = fs[i].module;
    out.push_back(std::move(fs[i]));
    if (!of) continue;
    auto it = sampled.find({module, *of});
    if (it == sampled.end() || placed[it->second]) continue;  // none, or placed before it already
    placed[it->second] = true;
    out.push_back(std::move(fs[it->second]));
  }
  fs = std::move(out);
}

}  // namespace

void select_functions(result::Survey& s, const Selection& sel) {
  auto& fs = s.functions;
  if (sel.sort == SortKey::Work)
    std::stable_sort(fs.begin(), fs.end(), [](const auto& a, const auto& b) {
      return std::make_tuple(a.self_flops.has_value(), a.self_flops.value_or(0), a.self_samples) >
             std::make_tuple(b.self_flops.has_value(), b.self_flops.value_or(0), b.self_samples);
    });
  else
    std::stable_sort(fs.begin(), fs.end(), [](const auto& a, const auto& b) {
      return std::tie(a.self_samples, a.total_samples) > std::tie(b.self_samples, b.total_samples);
    });
  keep_sampled_after_variants(fs);
  std::vector<result::SurveyFunction> kept;
  for (auto& f : fs) {
    if (kept.size() >= sel.top) break;
    const double percent = s.samples ? 100.0 * double(f.self_samples) / double(s.samples) : 0;
    if (sel.sort == SortKey::Time && percent < sel.min_percent) break;  // sorted: the rest are below too
    if (sel.sort == SortKey::Work && percent < sel.min_percent) continue;
    kept.push_back(std::move(f));
  }
  fs = std::move(kept);
}

bool probeable(const result::SurveyFunction& f) {
  return !f.symbol.empty() &&
         (f.probe == "patch" || f.probe == "breakpoint" || f.probe == "agent" || f.probe == "inlined");
}

std::vector<std::string> regions_from(const result::Run& run, const std::string& path) {
  if (!run.survey)
    throw UserError("--regions-from " + path + ": not a survey result (write one with roofprof survey -o " + path +
                    " -- PROGRAM)");
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& f : run.survey->functions)
    if (probeable(f) && seen.insert(f.symbol).second) out.push_back(f.symbol);
  if (out.empty())
    throw UserError("--regions-from " + path + ": the survey names no function a region can measure (only the "
                    "kernel or code without symbols); survey again with a larger --top");
  return out;
}

}  // namespace roofprof::survey
