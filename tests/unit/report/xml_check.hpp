#pragma once
// A small well-formedness check for the SVG and HTML roofprof writes: balanced tags, quoted
// attributes, known entities. Returns "" when well-formed, else what is wrong and where. Also
// collects every element with its attributes, for counting.
#include <cctype>
#include <map>
#include <string>
#include <vector>

namespace roofprof::report::testing {

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  bool has_class(const std::string& token) const {
    auto it = attrs.find("class");
    if (it == attrs.end()) return false;
    std::string c = " " + it->second + " ";
    return c.find(" " + token + " ") != std::string::npos;
  }
};

inline std::string check_xml(const std::string& s, std::vector<Element>* elements = nullptr,
                             bool html_void_ok = false) {
  std::vector<std::string> stack;
  auto where = [&](size_t i) { return " at offset " + std::to_string(i); };
  auto check_entities = [&](size_t from, size_t to) -> std::string {
    for (size_t i = from; i < to; ++i) {
      if (s[i] == '<') return "raw '<' in text" + where(i);
      if (s[i] != '&') continue;
      size_t semi = s.find(';', i);
      if (semi == std::string::npos || semi > to) return "unterminated entity" + where(i);
      std::string e = s.substr(i + 1, semi - i - 1);
      bool ok = e == "amp" || e == "lt" || e == "gt" || e == "quot" || e == "apos" ||
                (e.size() > 1 && e[0] == '#');
      if (!ok) return "unknown entity &" + e + ";" + where(i);
    }
    return "";
  };
  size_t i = 0;
  bool in_raw = false;  // <style>/<script> content is not parsed
  while (i < s.size()) {
    size_t lt = s.find('<', i);
    if (lt == std::string::npos) lt = s.size();
    if (!in_raw) {
      if (auto e = check_entities(i, lt); !e.empty()) return e;
    }
    if (lt == s.size()) break;
    if (in_raw) {
      if (s.compare(lt, 2 + stack.back().size(), "</" + stack.back()) != 0) {
        i = lt + 1;
        continue;
      }
      in_raw = false;
    }
    if (s.compare(lt, 4, "<!--") == 0) {
      size_t end = s.find("-->", lt);
      if (end == std::string::npos) return "unterminated comment" + where(lt);
      i = end + 3;
      continue;
    }
    if (s.compare(lt, 2, "<?") == 0 || s.compare(lt, 2, "<!") == 0) {
      i = s.find('>', lt) + 1;
      continue;
    }
    size_t gt = s.find('>', lt);
    if (gt == std::string::npos) return "unterminated tag" + where(lt);
    std::string tag = s.substr(lt + 1, gt - lt - 1);
    if (!tag.empty() && tag[0] == '/') {
      std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name)
        return "closing </" + name + "> does not match <" + (stack.empty() ? "" : stack.back()) +
               ">" + where(lt);
      stack.pop_back();
      i = gt + 1;
      continue;
    }
    bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    size_t p = 0;
    while (p < tag.size() && !std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
    Element el;
    el.name = tag.substr(0, p);
    if (el.name.empty()) return "empty tag name" + where(lt);
    while (p < tag.size()) {
      while (p < tag.size() && std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
      if (p >= tag.size()) break;
      size_t eq = tag.find('=', p);
      if (eq == std::string::npos || tag[eq + 1] != '"') return "unquoted attribute" + where(lt);
      size_t close = tag.find('"', eq + 2);
      if (close == std::string::npos) return "unterminated attribute" + where(lt);
      std::string name = tag.substr(p, eq - p);
      if (el.attrs.count(name)) return "attribute " + name + " twice" + where(lt);
      if (auto e = check_entities(lt + 1 + eq + 2, lt + 1 + close); !e.empty()) return e;
      el.attrs[name] = tag.substr(eq + 2, close - eq - 2);
      p = close + 1;
    }
    const bool html_void = html_void_ok && (el.name == "meta" || el.name == "br");
    if (!self_closing && !html_void) {
      stack.push_back(el.name);
      in_raw = el.name == "style" || el.name == "script";
    }
    if (elements) elements->push_back(el);
    i = gt + 1;
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  return "";
}

}  // namespace roofprof::report::testing
