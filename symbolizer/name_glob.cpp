#include "symbolizer/name_glob.hpp"

#include <fnmatch.h>

#include "symbolizer/demangle.hpp"
#include "symbolizer/elf_file.hpp"
#include "symbolizer/linespec.hpp"

namespace roofprof::symbolizer {

namespace {

void append_literal(std::string& out, std::string_view text) {
  for (char c : text) {
    if (c == ' ') continue;
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
}

// The length of a bracket text that is part of a name at s[i] ("[abi:cxx11]", " [clone .isra.0]"), else 0.
size_t literal_bracket(std::string_view s, size_t i) {
  std::string_view rest = s.substr(i);
  if (!rest.starts_with("[abi:") && !rest.starts_with(" [clone ")) return 0;
  size_t close = rest.find(']');
  return close == std::string_view::npos ? 0 : close + 1;
}

bool fnmatch_whole(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

}  // namespace

std::string fnmatch_pattern(std::string_view p, bool* wild) {
  std::string out;
  bool any = false;
  int parens = 0;
  for (size_t i = 0; i < p.size();) {
    if (size_t j = skip_operator(p, i); j != i) {
      append_literal(out, p.substr(i, j - i));
      i = j;
      continue;
    }
    if (size_t n = literal_bracket(p, i)) {
      append_literal(out, p.substr(i, n));
      i += n;
      continue;
    }
    char c = p[i];
    if (c == '(') ++parens;
    if (c == ')' && parens > 0) --parens;
    if (parens == 0 && c == '[' && p.find(']', i + 1) != std::string_view::npos) {  // a character class
      size_t close = p.find(']', i + 2);  // "[]abc]": the first ']' is one of the class
      if (close == std::string_view::npos) close = p.find(']', i + 1);
      out.append(p.substr(i, close - i + 1));
      i = close + 1;
      any = true;
      continue;
    }
    if (parens == 0 && (c == '*' || c == '?')) {
      out += c;
      any = true;
    } else {
      append_literal(out, std::string_view(&c, 1));
    }
    ++i;
  }
  if (wild) *wild = any;
  return out;
}

bool is_glob(std::string_view pattern) {
  if (pattern.find_first_of("*?[") == std::string_view::npos) return false;  // the common case, cheaply
  bool wild = false;
  fnmatch_pattern(pattern, &wild);
  return wild;
}

bool glob_matches(std::string_view pattern, const Symbol& s) {
  if (is_cold_fragment(s.name)) return false;
  const std::string glob = fnmatch_pattern(pattern);
  for (const std::string& whole : {s.name, strip_clone_suffix(s.name), without_spaces(s.demangled)})
    if (fnmatch_whole(glob, whole)) return true;
  // The name's trailing scopes, with and without the parameter list.
  for (const LinespecName& n : linespec_names(s)) {
    std::string tail;
    for (size_t k = n.scopes.size(); k-- > 0;) {
      tail = tail.empty() ? n.scopes[k] : n.scopes[k] + "::" + tail;
      if (fnmatch_whole(glob, tail) || (n.params && fnmatch_whole(glob, tail + *n.params))) return true;
    }
  }
  return false;
}

}  // namespace roofprof::symbolizer
