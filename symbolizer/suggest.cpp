#include "symbolizer/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <tuple>

#include "common/strings.hpp"
#include "symbolizer/linespec.hpp"

namespace roofprof::symbolizer {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t length_gap(size_t a, size_t b) { return a > b ? a - b : b - a; }

struct Score {
  size_t folded = std::numeric_limits<size_t>::max();  // case-insensitive, best trailing scopes
  size_t exact = std::numeric_limits<size_t>::max();   // exact case, same scopes
  bool operator<(const Score& o) const { return std::tie(folded, exact) < std::tie(o.folded, o.exact); }
};

// The closest of `name`'s trailing scopes to `pattern`; distances above `bound` are not computed
// (the name cannot be among the closest then).
Score score(std::string_view pattern, const std::string& folded_pattern, const std::string& name, size_t bound) {
  Score best;
  auto scopes = split_scopes(name);
  std::string tail;
  for (size_t k = scopes.size(); k-- > 0;) {
    tail = tail.empty() ? scopes[k] : scopes[k] + "::" + tail;
    if (length_gap(tail.size(), pattern.size()) > std::min(bound, best.folded)) {
      if (tail.size() > pattern.size()) break;  // longer tails only grow
      continue;
    }
    std::string folded_tail = lower(tail);
    Score s{edit_distance(folded_pattern, folded_tail), edit_distance(pattern, tail)};
    if (s < best) best = s;
  }
  std::string folded_name = lower(name);
  if (!folded_pattern.empty() && folded_name.find(folded_pattern) != std::string::npos)
    best = std::min(best, Score{1, 1});
  return best;
}

}  // namespace

std::vector<std::string> closest_names(std::string_view pattern, const std::vector<std::string>& names,
                                       size_t count) {
  const std::string folded = lower(pattern);
  std::vector<std::tuple<size_t, size_t, std::string>> ranked;  // kept sorted, at most `count`
  for (const std::string& name : names) {
    size_t bound = ranked.size() < count ? std::numeric_limits<size_t>::max() : std::get<0>(ranked.back());
    Score s = score(pattern, folded, name, bound);
    if (s.folded == std::numeric_limits<size_t>::max()) continue;
    auto entry = std::make_tuple(s.folded, s.exact, name);
    if (ranked.size() == count && !(entry < ranked.back())) continue;
    auto at = std::lower_bound(ranked.begin(), ranked.end(), entry);
    if (at != ranked.end() && *at == entry) continue;  // a duplicate
    ranked.insert(at, std::move(entry));
    if (ranked.size() > count) ranked.pop_back();
  }
  std::vector<std::string> out;
  for (auto& e : ranked) out.push_back(std::move(std::get<2>(e)));
  return out;
}

}  // namespace roofprof::symbolizer
