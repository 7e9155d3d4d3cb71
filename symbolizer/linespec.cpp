#include "symbolizer/linespec.hpp"

#include <algorithm>
#include <cctype>

#include "symbolizer/demangle.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::symbolizer {

namespace {

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

// Splits at "::" outside <...> and (...).
std::vector<std::string> split_scopes(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    else if ((c == '>' || c == ')' || c == ']') && depth > 0) --depth;
    else if (depth == 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      out.emplace_back(s.substr(begin, i - begin));
      begin = i + 2;
      ++i;
    }
  }
  out.emplace_back(s.substr(begin));
  return out;
}

// The index of the '(' opening the last top-level parenthesised group, when `s` ends with it
// (after cv/ref qualifiers); npos otherwise.
size_t parameter_list_start(std::string_view s) {
  size_t end = s.find_last_of(')');
  if (end == std::string_view::npos) return end;
  std::string_view tail = s.substr(end + 1);
  for (std::string_view q : {"const", "volatile", "&&", "&", "noexcept"})
    for (size_t p = tail.find(q); p != std::string_view::npos; p = tail.find(q)) tail.remove_prefix(p + q.size());
  if (tail.find_first_not_of(' ') != std::string_view::npos) return std::string_view::npos;
  int depth = 0;
  for (size_t i = end + 1; i-- > 0;) {
    if (s[i] == ')') ++depth;
    else if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// "Solver<double>" -> "Solver"; operators keep their spelling.
std::string_view without_template_args(std::string_view scope) {
  if (scope.rfind("operator", 0) == 0 || scope.empty() || scope.back() != '>') return scope;
  int depth = 0;
  for (size_t i = scope.size(); i-- > 0;) {
    if (scope[i] == '>') ++depth;
    else if (scope[i] == '<' && --depth == 0) return i ? scope.substr(0, i) : scope;
  }
  return scope;
}

bool scope_matches(std::string_view pattern, std::string_view scope) {
  if (pattern == scope) return true;
  return pattern.find('<') == std::string_view::npos && pattern == without_template_args(scope);
}

bool is_clone_word(std::string_view w) {
  for (std::string_view k : {"constprop", "isra", "part", "lto_priv", "localalias", "clone", "specialized"})
    if (w == k) return true;
  return std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
         !w.empty();
}

// gfortran "__mymod_MOD_kernel", Intel "mymod_mp_kernel_" -> {"mymod", "kernel"}.
std::optional<std::vector<std::string>> fortran_module_procedure(std::string_view n) {
  if (n.rfind("__", 0) == 0) {
    size_t mod = n.find("_MOD_", 2);
    if (mod != std::string_view::npos && mod > 2 && mod + 5 < n.size())
      return std::vector<std::string>{std::string(n.substr(2, mod - 2)), std::string(n.substr(mod + 5))};
  }
  size_t mp = n.find("_mp_");
  if (mp != std::string_view::npos && mp > 0 && n.size() > mp + 5 && n.back() == '_')
    return std::vector<std::string>{std::string(n.substr(0, mp)), std::string(n.substr(mp + 4, n.size() - mp - 5))};
  return std::nullopt;
}

}  // namespace

std::string strip_clone_suffix(std::string_view name) {
  if (is_cold_fragment(name)) return std::string(name);
  // Demangled: " [clone .isra.0]" suffixes.
  while (name.ends_with("]")) {
    size_t c = name.rfind(" [clone ");
    if (c == std::string_view::npos) break;
    name = name.substr(0, c);
  }
  // Symbol: "f.part.0.isra.0", every dot-separated word after the first dot a clone word.
  size_t dot = name.find('.', 1);
  if (dot == std::string_view::npos) return std::string(name);
  std::string_view rest = name.substr(dot + 1);
  while (!rest.empty()) {
    size_t next = rest.find('.');
    if (!is_clone_word(rest.substr(0, next))) return std::string(name);
    rest = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
  }
  return std::string(name.substr(0, dot));
}

LinespecName parse_linespec(std::string_view pattern) {
  std::string p = without_spaces(pattern);
  LinespecName out;
  if (size_t open = parameter_list_start(p); open != std::string::npos && open > 0) {
    out.params = p.substr(open);
    p.resize(open);
  }
  out.scopes = split_scopes(p);
  if (!out.scopes.empty() && out.scopes.front().empty()) out.scopes.erase(out.scopes.begin());  // "::f"
  return out;
}

std::vector<LinespecName> linespec_names(const Symbol& s) {
  std::vector<LinespecName> out;
  if (is_cold_fragment(s.name)) return out;
  if (s.demangled != s.name) {  // C++
    std::string full = strip_clone_suffix(s.demangled);
    LinespecName n;
    n.scopes = split_scopes(without_spaces(short_name(full)));
    size_t open = parameter_list_start(full);
    if (open != std::string::npos) n.params = without_spaces(full.substr(open));
    // The parameter list ends at its ')': drop trailing qualifiers for the comparison.
    if (n.params) n.params->resize(n.params->find_last_of(')') + 1);
    out.push_back(std::move(n));
    return out;
  }
  std::string base = strip_clone_suffix(strip_version(s.name));
  out.push_back(LinespecName{{base}, std::nullopt, false});
  if (auto mod = fortran_module_procedure(base)) out.push_back(LinespecName{*mod, std::nullopt, false});
  else if (base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_')
    out.push_back(LinespecName{{base.substr(0, base.size() - 1)}, std::nullopt, true});
  return out;
}

bool linespec_matches(const LinespecName& pattern, const LinespecName& name) {
  if (pattern.scopes.empty() || pattern.scopes.size() > name.scopes.size()) return false;
  size_t offset = name.scopes.size() - pattern.scopes.size();
  for (size_t i = 0; i < pattern.scopes.size(); ++i)
    if (!scope_matches(pattern.scopes[i], name.scopes[offset + i])) return false;
  if (pattern.params && name.params && *pattern.params != *name.params) return false;
  if (pattern.params && !name.params) return false;
  return true;
}

std::string display_name(const Symbol& s) {
  if (s.demangled != s.name) return strip_clone_suffix(s.short_name);
  std::string base = strip_clone_suffix(strip_version(s.name));
  if (auto mod = fortran_module_procedure(base)) return (*mod)[0] + "::" + (*mod)[1];
  return base;
}

}  // namespace roofprof::symbolizer
