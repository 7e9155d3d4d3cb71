#include "symbolizer/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace roofprof::symbolizer {

std::string demangle(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::string(name);
  std::string mangled(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return mangled;
  return std::string(out.get());
}

std::string_view strip_version(std::string_view name) {
  size_t at = name.find('@');
  return at == std::string_view::npos ? name : name.substr(0, at);
}

bool is_cold_fragment(std::string_view name) {
  return name.ends_with(".cold") || name.find(".cold.") != std::string_view::npos ||
         name.find("[clone .cold") != std::string_view::npos;
}

namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

}  // namespace

size_t skip_operator(std::string_view s, size_t i) {
  constexpr std::string_view kw = "operator";
  if (s.substr(i, kw.size()) != kw) return i;
  if (i > 0 && is_ident_char(s[i - 1])) return i;
  size_t j = i + kw.size();
  if (j < s.size() && is_ident_char(s[j])) return i;  // "operator_x" is an ordinary name
  if (j >= s.size()) return j;
  if (s[j] == ' ') {
    size_t k = j + 1;
    for (std::string_view word : {"new", "delete"}) {
      if (s.substr(k, word.size()) == word &&
          (k + word.size() >= s.size() || !is_ident_char(s[k + word.size()]))) {
        k += word.size();
        if (s.substr(k, 2) == "[]") k += 2;
        return k;
      }
    }
    if (s.substr(k, 2) == "\"\"") return k + 2;  // user-defined literal: operator"" _x
    // Conversion operator: the type runs up to the parameter list.
    int depth = 0;
    while (k < s.size() && !(depth == 0 && s[k] == '(')) {
      if (s[k] == '<') ++depth;
      if (s[k] == '>') --depth;
      ++k;
    }
    return k;
  }
  if (s.substr(j, 2) == "()" || s.substr(j, 2) == "[]") return j + 2;
  constexpr std::string_view sym = "+-*/%^&|~!=<>,";
  while (j < s.size() && sym.find(s[j]) != std::string_view::npos) ++j;
  // "operator< <int>": the demangler separates template arguments with a space.
  if (j + 1 < s.size() && s[j] == ' ' && s[j + 1] == '<') ++j;
  return j;
}

namespace {

bool only_qualifiers(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size()) {
    if (rest[i] == ' ') { ++i; continue; }
    bool ok = false;
    for (std::string_view q : {"const", "volatile", "&&", "&", "noexcept", "restrict"}) {
      if (rest.substr(i, q.size()) == q) { i += q.size(); ok = true; break; }
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string short_name(std::string_view demangled) {
  std::string_view s = demangled;
  // Peel " [clone .xxx]" suffixes (possibly several), to re-append them afterwards.
  std::string clones;
  while (s.ends_with("]")) {
    size_t c = s.rfind(" [clone ");
    if (c == std::string_view::npos) break;
    clones.insert(0, s.substr(c));
    s = s.substr(0, c);
  }
  // Scan at nesting depth 0, skipping operator spellings; remember the last top-level
  // parenthesised group and the last top-level space before it.
  int depth = 0;
  size_t last_open = std::string_view::npos, last_close = std::string_view::npos;
  size_t space_before_open = std::string_view::npos, last_space = std::string_view::npos;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == 'o') {
      size_t j = skip_operator(s, i);
      if (j != i) { i = j; continue; }
    }
    if (c == '(' || c == '<' || c == '[' || c == '{') {
      if (depth == 0 && c == '(') { last_open = i; space_before_open = last_space; }
      ++depth;
    } else if (c == ')' || c == '>' || c == ']' || c == '}') {
      if (depth > 0) --depth;
      if (depth == 0 && c == ')') last_close = i;
    } else if (c == ' ' && depth == 0) {
      last_space = i;
    }
    ++i;
  }
  if (last_open == std::string_view::npos || last_close == std::string_view::npos ||
      last_close < last_open || last_open == 0 || !only_qualifiers(s.substr(last_close + 1))) {
    return std::string(demangled);
  }
  size_t begin = space_before_open == std::string_view::npos ? 0 : space_before_open + 1;
  std::string out(s.substr(begin, last_open - begin));
  // ABI tags are not part of the name a user writes: "f[abi:cxx11]" -> "f".
  for (size_t tag = out.find("[abi:"); tag != std::string::npos; tag = out.find("[abi:", tag)) {
    size_t close = out.find(']', tag);
    if (close == std::string::npos) break;
    out.erase(tag, close - tag + 1);
  }
  return out + clones;
}

}  // namespace roofprof::symbolizer
