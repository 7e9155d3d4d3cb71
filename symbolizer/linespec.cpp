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

// Only cv/ref qualifiers and spaces: what may follow a parameter list.
bool only_qualifiers(std::string_view tail) {
  for (std::string_view q : {"const", "volatile", "&&", "&", "noexcept"})
    for (size_t p = tail.find(q); p != std::string_view::npos; p = tail.find(q)) tail.remove_prefix(p + q.size());
  return tail.find_first_not_of(' ') == std::string_view::npos;
}

// The index of the '(' opening the last top-level parenthesised group, when `s` ends with it
// (after cv/ref qualifiers); npos otherwise. An operator's own parentheses ("operator()") and a
// lambda's ("{lambda(int)#1}") are no parameter list.
size_t parameter_list_start(std::string_view s) {
  int depth = 0;
  size_t open = std::string_view::npos, close = std::string_view::npos;
  for (size_t i = 0; i < s.size();) {
    if (size_t j = skip_operator(s, i); j != i) {
      i = j;
      continue;
    }
    char c = s[i];
    if (c == '(' || c == '<' || c == '[' || c == '{') {
      if (depth == 0 && c == '(') open = i, close = std::string_view::npos;
      ++depth;
    } else if ((c == ')' || c == '>' || c == ']' || c == '}') && depth > 0) {
      if (--depth == 0 && c == ')') close = i;
    }
    ++i;
  }
  if (open == std::string_view::npos || close == std::string_view::npos) return std::string_view::npos;
  return only_qualifiers(s.substr(close + 1)) ? open : std::string_view::npos;
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

// "run(int)" (a scope that is a function: a lambda's or local class's enclosing function) ->
// "run"; other scopes unchanged.
std::string_view without_parameters(std::string_view scope) {
  size_t open = parameter_list_start(scope);
  return open == std::string_view::npos || open == 0 ? scope : scope.substr(0, open);
}

bool scope_matches(std::string_view pattern, std::string_view scope) {
  if (pattern == scope) return true;
  if (pattern.find('(') == std::string_view::npos) scope = without_parameters(scope);
  if (pattern == scope) return true;
  return pattern.find('<') == std::string_view::npos && pattern == without_template_args(scope);
}

// "{lambda(int)#1}": the scope gcc gives a lambda's closure type.
bool is_lambda_scope(std::string_view scope) { return scope.starts_with("{lambda(") && scope.ends_with("}"); }

// "lambda@prog.cpp:42", "lambda@42" -> the place; nullopt for any other scope.
std::optional<LambdaRef> parse_lambda_ref(std::string_view scope) {
  constexpr std::string_view kw = "lambda@";
  if (!scope.starts_with(kw)) return std::nullopt;
  scope.remove_prefix(kw.size());
  LambdaRef ref;
  size_t colon = scope.rfind(':');
  std::string_view num = colon == std::string_view::npos ? scope : scope.substr(colon + 1);
  if (colon != std::string_view::npos) ref.file = std::string(scope.substr(0, colon));
  if (num.empty() || num.size() > 9 ||
      !std::all_of(num.begin(), num.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  ref.line = unsigned(std::stoul(std::string(num)));
  if (ref.line == 0 || (colon != std::string_view::npos && ref.file.empty())) return std::nullopt;
  return ref;
}

bool is_clone_word(std::string_view w) {
  for (std::string_view k : {"constprop", "isra", "part", "lto_priv", "localalias", "clone", "specialized"})
    if (w == k) return true;
  return std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
         !w.empty();
}


}  // namespace

std::vector<std::string> split_scopes(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < s.size();) {
    if (size_t j = skip_operator(s, i); j != i) {
      i = j;
      continue;
    }
    char c = s[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (depth == 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      out.emplace_back(s.substr(begin, i - begin));
      begin = i + 2;
      i += 2;
      continue;
    }
    ++i;
  }
  out.emplace_back(s.substr(begin));
  return out;
}

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
  std::string_view p = pattern;
  LinespecName out;
  // Split before removing spaces: "operator new" must stay recognisable as an operator.
  if (size_t open = parameter_list_start(p); open != std::string::npos && open > 0) {
    std::string params = without_spaces(p.substr(open));
    params.resize(params.find_last_of(')') + 1);  // qualifiers are not compared
    out.params = std::move(params);
    p = p.substr(0, open);
  }
  for (const auto& scope : split_scopes(p)) out.scopes.push_back(without_spaces(scope));
  if (!out.scopes.empty() && out.scopes.front().empty()) out.scopes.erase(out.scopes.begin());  // "::f"
  if (!out.scopes.empty() && !out.params)
    if (auto ref = parse_lambda_ref(out.scopes.back())) {  // "main::lambda@prog.cpp:42"
      out.lambda = std::move(ref);
      out.scopes.pop_back();
    }
  return out;
}

std::vector<LinespecName> linespec_names(const Symbol& s) {
  std::vector<LinespecName> out;
  if (is_cold_fragment(s.name)) return out;
  if (s.demangled != s.name) {  // C++
    std::string full = strip_clone_suffix(s.demangled);
    LinespecName n;
    for (const auto& scope : split_scopes(short_name(full))) n.scopes.push_back(without_spaces(scope));
    size_t open = parameter_list_start(full);
    if (open != std::string::npos) n.params = without_spaces(full.substr(open));
    // The parameter list ends at its ')': drop trailing qualifiers for the comparison.
    if (n.params) n.params->resize(n.params->find_last_of(')') + 1);
    out.push_back(std::move(n));
    return out;
  }
  std::string base = strip_clone_suffix(strip_version(s.name));
  out.push_back(LinespecName{{base}, std::nullopt, false, std::nullopt});
  if (auto mod = fortran_module_procedure(base)) out.push_back(LinespecName{*mod, std::nullopt, false, std::nullopt});
  else if (base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_')
    out.push_back(LinespecName{{base.substr(0, base.size() - 1)}, std::nullopt, true, std::nullopt});
  return out;
}

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

bool linespec_matches(const LinespecName& pattern, const LinespecName& name) {
  if (pattern.lambda) return lambda_matches(pattern, name);
  if (pattern.scopes.empty() || pattern.scopes.size() > name.scopes.size()) return false;
  size_t offset = name.scopes.size() - pattern.scopes.size();
  for (size_t i = 0; i < pattern.scopes.size(); ++i)
    if (!scope_matches(pattern.scopes[i], name.scopes[offset + i])) return false;
  if (pattern.params && name.params && *pattern.params != *name.params) return false;
  if (pattern.params && !name.params) return false;
  return true;
}

bool lambda_matches(const LinespecName& pattern, const LinespecName& name) {
  // NAME = ENCLOSING..., {lambda(ARGS)#N}, operator(): the pattern's scopes end ENCLOSING.
  const auto& n = name.scopes;
  if (n.size() < 2 || n.back() != "operator()" || !is_lambda_scope(n[n.size() - 2])) return false;
  const size_t enclosing = n.size() - 2;
  if (pattern.scopes.size() > enclosing) return false;
  for (size_t i = 0; i < pattern.scopes.size(); ++i)
    if (!scope_matches(pattern.scopes[i], n[enclosing - pattern.scopes.size() + i])) return false;
  return true;
}

std::string display_name(const Symbol& s) {
  if (s.demangled != s.name) return strip_clone_suffix(s.short_name);
  std::string base = strip_clone_suffix(strip_version(s.name));
  if (auto mod = fortran_module_procedure(base)) return (*mod)[0] + "::" + (*mod)[1];
  return base;
}

}  // namespace roofprof::symbolizer
