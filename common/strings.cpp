#include "common/strings.hpp"

#include <algorithm>
#include <fnmatch.h>
#include <queue>
#include <set>

namespace roofprof {

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

bool has_glob_chars(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

std::string_view path_basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent
  // transpositions ("wrok" -> "work") each cost 1. Three rows of the table: O(|b|) memory.
  const size_t m = b.size();
  std::vector<size_t> before(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t d = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d = std::min(d, before[j - 2] + 1);
      cur[j] = d;
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::vector<std::string> closest(std::string_view word, const std::vector<std::string>& candidates,
                                 size_t count) {
  if (count == 0) return {};
  std::set<std::string> uniq(candidates.begin(), candidates.end());
  // The `count` best (distance, name) pairs so far, worst on top. A candidate whose length alone
  // puts it further than the worst kept one is skipped without computing its distance
  // (|len(a) - len(b)| is a lower bound), so the result is that of scoring every candidate.
  using Scored = std::pair<size_t, std::string_view>;
  std::priority_queue<Scored> best;
  for (const auto& c : uniq) {
    size_t d;
    // A candidate that contains the word is a better hint than its raw distance says.
    if (!word.empty() && c.find(word) != std::string::npos) {
      d = c.size() == word.size() ? 0 : 1;
    } else {
      const size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
      if (best.size() == count && gap > best.top().first) continue;
      d = edit_distance(word, c);
    }
    Scored s{d, c};
    if (best.size() < count) best.push(s);
    else if (s < best.top()) {
      best.pop();
      best.push(s);
    }
  }
  std::vector<std::string> out(best.size());
  for (size_t i = best.size(); i-- > 0; best.pop()) out[i] = std::string(best.top().second);
  return out;
}

std::string shorten_long_words(std::string_view message, size_t max) {
  std::string out;
  out.reserve(std::min(message.size(), size_t(4096)));
  for (size_t i = 0; i < message.size();) {
    const size_t end = std::min(message.find(' ', i), message.size());
    out += shorten_for_message(message.substr(i, end - i), max);
    if (end < message.size()) out += ' ';
    i = end + 1;
  }
  return out;
}

std::string shorten_for_message(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t keep = max;
  while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xc0) == 0x80) --keep;  // whole UTF-8 characters
  return std::string(s.substr(0, keep)) + "... (" + std::to_string(s.size()) + " bytes)";
}

}  // namespace roofprof

namespace roofprof {

std::string sanitize_for_terminal(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  auto hex = [](std::string& out, unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      hex(out, c);
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      hex(out, static_cast<unsigned char>(s[++i]));  // a C1 control (CSI is U+009B)
    } else {
      out += char(c);
    }
  }
  return out;
}

}  // namespace roofprof
