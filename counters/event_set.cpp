#include "counters/event_set.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <set>
#include <sstream>

#include "common/error.hpp"

namespace roofprof::counters {
namespace {

class LineError {
 public:
  LineError(const std::string& source, int line) : source_(source), line_(line) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(fmt::format("{}:{}: {}", source_, line_, what));
  }

 private:
  const std::string& source_;
  int line_;
};

// Words separated by white space (the catalog is parsed at every run: no stream, no regex).
std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> out;
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  for (size_t i = 0; i < s.size();) {
    while (i < s.size() && space(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !space(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// The text after the first `n` words.
std::string rest_after(const std::string& line, size_t n) {
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    while (pos < line.size() && std::isspace(static_cast<unsigned char>(line[pos]))) ++pos;
    while (pos < line.size() && !std::isspace(static_cast<unsigned char>(line[pos]))) ++pos;
  }
  return trim(std::string_view(line).substr(pos));
}

bool valid_id(const std::string& id) {
  if (id.empty() || !std::islower(static_cast<unsigned char>(id[0]))) return false;
  for (char c : id)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '_'))
      return false;
  return true;
}

int parse_int(const std::string& s, const LineError& err) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 0);
  if (s.empty() || *end != '\0' || v < 0 || v > 1'000'000) err.fail("not a number: '" + s + "'");
  return static_cast<int>(v);
}

// "0x55" -> models 0x55..0x55; "0x60-0xaf" -> 0x60..0xaf.
CpuModels parse_models(int family, const std::string& word, const LineError& err) {
  const size_t dash = word.find('-');
  CpuModels m{family, 0, 0};
  m.first = parse_int(word.substr(0, dash), err);
  m.last = dash == std::string::npos ? m.first : parse_int(word.substr(dash + 1), err);
  if (m.last < m.first) err.fail("model range '" + word + "' ends before it starts");
  return m;
}

// The first "{A..B}" of `line` (A, B decimal): where it starts, its length and its bounds.
struct RangeToken {
  size_t at = std::string::npos, size = 0;
  int lo = 0, hi = 0;
};
RangeToken find_range(const std::string& line, size_t from = 0) {
  auto digits = [&](size_t i) {
    size_t j = i;
    while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    return j;
  };
  for (size_t open = line.find('{', from); open != std::string::npos; open = line.find('{', open + 1)) {
    const size_t a_end = digits(open + 1);
    if (a_end == open + 1 || line.compare(a_end, 2, "..") != 0) continue;
    const size_t b_end = digits(a_end + 2);
    if (b_end == a_end + 2 || b_end >= line.size() || line[b_end] != '}') continue;
    return {open, b_end + 1 - open, std::stoi(line.substr(open + 1, a_end - open - 1)),
            std::stoi(line.substr(a_end + 2, b_end - a_end - 2))};
  }
  return {};
}

// "skx_unc_imc{0..5}::X @uncore_imc_{0..5}" -> six lines with 0..5 substituted everywhere.
std::vector<std::string> expand_range(const std::string& line, const LineError& err) {
  const RangeToken r = find_range(line);
  if (r.at == std::string::npos) return {line};
  const std::string token = line.substr(r.at, r.size);
  if (r.hi < r.lo || r.hi - r.lo > 64) err.fail("bad range " + token);
  std::vector<std::string> out;
  for (int i = r.lo; i <= r.hi; ++i) {
    std::string copy = line;
    for (size_t p = copy.find(token); p != std::string::npos; p = copy.find(token, p))
      copy.replace(p, token.size(), std::to_string(i));
    if (find_range(copy).at != std::string::npos) err.fail("only one {a..b} range per line");
    out.push_back(copy);
  }
  return out;
}

EventLine parse_event_line(const std::vector<std::string>& w, EventScope scope, int lineno,
                           const LineError& err) {
  if (w.size() < 3) err.fail(w[0] + " needs an id and an encoding");
  EventLine e;
  e.id = w[1];
  e.scope = scope;
  e.encoding = w[2];
  e.line = lineno;
  if (!valid_id(e.id)) err.fail("bad id '" + e.id + "' (lower case, digits, _)");
  auto check_raw = [&](const std::string& enc) {
    char* end = nullptr;
    std::strtoull(enc.c_str() + 4, &end, 16);
    if (enc.size() <= 4 || *end != '\0') err.fail("bad raw encoding '" + enc + "'");
  };
  if (e.encoding.rfind("raw:", 0) == 0) check_raw(e.encoding);
  for (size_t i = 3; i < w.size(); ++i) {
    if (w[i].rfind("raw:", 0) == 0 && e.encoding.rfind("raw:", 0) != 0 && e.raw_fallback.empty()) {
      check_raw(w[i]);
      e.raw_fallback = w[i];
    } else if (w[i][0] == '@' && w[i].size() > 1) e.perf_pmu = w[i].substr(1);
    else if (w[i] == "fixed") e.fixed = true;
    else if (w[i] == "pair") e.cost = 2;
    else err.fail("unknown event attribute '" + w[i] + "' (raw:0x.. fallback, @pmu, fixed, pair)");
  }
  if (scope == EventScope::uncore && e.perf_pmu.empty())
    err.fail("uncore events need @<sysfs pmu>, e.g. @uncore_imc_0");
  if (scope == EventScope::uncore && (e.fixed || e.cost != 1))
    err.fail("fixed/pair apply to per-thread events only");
  return e;
}

Formula parse_formula(const std::string& line, const std::vector<std::string>& w, bool approx,
                      int lineno, const LineError& err) {
  if (w.size() < 4 || w[2] != "=") err.fail(w[0] + " must read: " + w[0] + " NAME = TERM + TERM ...");
  Formula f;
  f.name = w[1];
  f.approximate = approx;
  f.line = lineno;
  std::string expr = rest_after(line, 3);
  std::stringstream terms(expr);
  std::string term;
  while (std::getline(terms, term, '+')) {
    term = trim(term);
    Term t;
    const size_t star = term.find('*');
    if (star == std::string::npos) {
      t.id = term;
    } else {
      const std::string num = trim(std::string_view(term).substr(0, star));
      char* end = nullptr;
      t.weight = std::strtod(num.c_str(), &end);
      if (num.empty() || *end != '\0' || !(t.weight > 0)) err.fail("bad weight '" + num + "'");
      t.id = trim(std::string_view(term).substr(star + 1));
    }
    if (!valid_id(t.id)) err.fail("bad term '" + term + "' (WEIGHT*id or id)");
    f.terms.push_back(t);
  }
  if (f.terms.empty()) err.fail("empty formula");
  return f;
}

void validate(const EventSet& s) {
  auto fail = [&](int line, const std::string& what) {
    throw UserError(fmt::format("{}:{}: {}", s.source, line, what));
  };
  if (s.model.empty()) fail(1, "missing `model`");
  if (s.title.empty()) fail(1, "missing `title`");
  if (s.vendor != "intel" && s.vendor != "amd") fail(1, "`vendor` must be intel or amd");
  if (s.pfm_pmus.empty() && s.cpus.empty()) fail(1, "missing `match` (pfm or cpu)");
  std::map<std::string, EventScope> ids;
  for (const EventLine& e : s.events) {
    auto [it, fresh] = ids.emplace(e.id, e.scope);
    if (!fresh && (e.scope == EventScope::thread || it->second != e.scope))
      fail(e.line, "id '" + e.id + "' defined twice (only uncore ids may repeat: they are summed)");
    if (e.scope == EventScope::thread && !e.fixed) {
      const int limit = s.counter_limit(e.perf_pmu);
      if (limit == 0)
        fail(e.line, "no `counters` line for PMU '" + (e.perf_pmu.empty() ? "core" : e.perf_pmu) + "'");
      if (e.cost > limit) fail(e.line, "event needs more counters than the PMU has");
    }
  }
  std::set<std::pair<std::string, bool>> names;
  for (const Formula& f : s.formulas) {
    if (!names.insert({f.name, f.approximate}).second)
      fail(f.line, "formula '" + f.name + "' defined twice");
    for (const Term& t : f.terms)
      if (!ids.count(t.id)) fail(f.line, "formula uses undefined id '" + t.id + "'");
  }
  if (s.fp_missing && s.formula("W")) fail(1, "`fp none` and a W formula contradict each other");
  if (!s.fp_missing && !s.formula("W")) fail(1, "missing `formula W = ...` (or `fp none REASON`)");
}

}  // namespace

const Formula* EventSet::formula(const std::string& name, bool approximate) const {
  for (const Formula& f : formulas)
    if (f.name == name && f.approximate == approximate) return &f;
  return nullptr;
}

int EventSet::counter_limit(const std::string& perf_pmu) const {
  for (const CounterLimit& c : counters)
    if (c.perf_pmu == perf_pmu) return c.count;
  return 0;
}

std::vector<const EventLine*> EventSet::lines(EventScope scope) const {
  std::vector<const EventLine*> out;
  for (const EventLine& e : events)
    if (e.scope == scope) out.push_back(&e);
  return out;
}

EventSet parse_event_set(std::string_view text, const std::string& source) {
  EventSet s;
  s.source = source;
  std::istringstream in{std::string(text)};
  std::string raw;
  int lineno = 0;
  while (std::getline(in, raw)) {
    ++lineno;
    const LineError err(source, lineno);
    const size_t hash = raw.find('#');
    const std::string line = trim(std::string_view(raw).substr(0, hash));
    if (line.empty()) continue;
    const std::vector<std::string> w = split_words(line);
    const std::string& key = w[0];
    if (key == "model") {
      if (w.size() != 2 || !valid_id(w[1])) err.fail("model takes one lower-case name");
      s.model = w[1];
    } else if (key == "title") {
      s.title = rest_after(line, 1);
    } else if (key == "vendor") {
      if (w.size() != 2) err.fail("vendor takes one word");
      s.vendor = w[1];
    } else if (key == "match" && w.size() >= 3 && w[1] == "pfm") {
      s.pfm_pmus.insert(s.pfm_pmus.end(), w.begin() + 2, w.end());
    } else if (key == "match" && w.size() >= 4 && w[1] == "cpu") {
      const int family = parse_int(w[2], err);
      for (size_t i = 3; i < w.size(); ++i) s.cpus.push_back(parse_models(family, w[i], err));
    } else if (key == "match") {
      err.fail("match must read `match pfm NAME...` or `match cpu FAMILY MODEL|FIRST-LAST...`");
    } else if (key == "counters") {
      if (w.size() < 2 || w.size() > 3) err.fail("counters N [@pmu]");
      CounterLimit c{"", parse_int(w[1], err)};
      if (w.size() == 3) {
        if (w[2][0] != '@') err.fail("counters N [@pmu]");
        c.perf_pmu = w[2].substr(1);
      }
      s.counters.push_back(c);
    } else if (key == "fp") {
      if (w.size() < 3 || w[1] != "none") err.fail("fp must read `fp none REASON`");
      s.fp_missing = rest_after(line, 2);
    } else if (key == "event" || key == "uncore") {
      const EventScope scope = key == "event" ? EventScope::thread : EventScope::uncore;
      for (const std::string& one : expand_range(line, err))
        s.events.push_back(parse_event_line(split_words(one), scope, lineno, err));
    } else if (key == "formula" || key == "approx") {
      s.formulas.push_back(parse_formula(line, w, key == "approx", lineno, err));
    } else if (key == "note") {
      s.notes.push_back(rest_after(line, 1));
    } else {
      err.fail("unknown keyword '" + key + "'");
    }
  }
  validate(s);
  return s;
}

std::optional<double> evaluate(const Formula& f, const std::map<std::string, double>& values) {
  double sum = 0;
  for (const Term& t : f.terms) {
    auto it = values.find(t.id);
    if (it == values.end() || std::isnan(it->second)) return std::nullopt;
    sum += t.weight * it->second;
  }
  return sum;
}

std::string to_string(const Formula& f) {
  std::string out;
  for (const Term& t : f.terms) {
    if (!out.empty()) out += " + ";
    out += fmt::format("{}*{}", t.weight, t.id);
  }
  return out;
}

}  // namespace roofprof::counters
