#include "common/strings.hpp"

#include <algorithm>
#include <fnmatch.h>
#include <set>

namespace roofprof {

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

bool has_glob_chars(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> closest(std::string_view word, const std::vector<std::string>& candidates,
                                 size_t count) {
  std::set<std::string> uniq(candidates.begin(), candidates.end());
  std::vector<std::pair<size_t, std::string>> scored;
  scored.reserve(uniq.size());
  for (const auto& c : uniq) {
    size_t d = edit_distance(word, c);
    // A candidate that contains the word is a better hint than its raw distance says.
    if (c.find(word) != std::string::npos) d = std::min(d, c.size() - word.size() > 0 ? size_t(1) : size_t(0));
    scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < count; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace roofprof
