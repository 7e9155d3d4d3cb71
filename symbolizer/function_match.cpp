#include "symbolizer/function_match.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/strings.hpp"
#include "symbolizer/demangle.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::symbolizer {

namespace {

struct Candidate {
  size_t module;         // index into the module list
  const Symbol* symbol;  // representative of its aliases
};

// Which alias names one site: a global name over a local one, then an exact match of the
// pattern, then the shortest, then the alphabetically first.
bool better_representative(const Symbol& a, const Symbol& b, std::string_view pattern) {
  auto key = [&](const Symbol& s) {
    bool exact = s.name == pattern || s.demangled == pattern || s.short_name == pattern;
    return std::make_tuple(!s.global, !exact, s.name.size(), std::string_view(s.name));
  };
  return key(a) < key(b);
}

}  // namespace

bool symbol_matches(std::string_view pattern, const Symbol& s) {
  if (has_glob_chars(pattern)) {
    if (is_cold_fragment(s.name)) return false;
    return glob_match(pattern, s.name) || glob_match(pattern, s.short_name) ||
           glob_match(pattern, s.demangled);
  }
  return s.name == pattern || s.short_name == pattern || s.demangled == pattern;
}

std::vector<FunctionMatch> match_functions(std::string_view pattern,
                                           const std::vector<const ElfFile*>& modules) {
  // 1. Matching symbols, aliases (same module, same address) merged into one candidate.
  std::map<std::pair<size_t, uint64_t>, const Symbol*> sites;
  for (size_t m = 0; m < modules.size(); ++m) {
    for (const Symbol& s : modules[m]->functions()) {
      if (!symbol_matches(pattern, s)) continue;
      auto [it, inserted] = sites.try_emplace({m, s.value}, &s);
      if (!inserted && better_representative(s, *it->second, pattern)) it->second = &s;
    }
  }
  std::vector<Candidate> found;
  for (const auto& [key, sym] : sites) found.push_back(Candidate{key.first, sym});

  // 2. Display names: the short name, unless two different signatures share it (overloads).
  std::map<std::string_view, std::set<std::string_view>> signatures;
  for (const auto& c : found) signatures[c.symbol->short_name].insert(c.symbol->demangled);
  auto display = [&](const Symbol& s) {
    return signatures[s.short_name].size() > 1 ? s.demangled : s.short_name;
  };

  // 3. Group sites by display name; sites in module order, then address.
  std::map<std::string, FunctionMatch> groups;
  for (const auto& c : found) {
    std::string name = display(*c.symbol);
    FunctionMatch& g = groups[name];
    g.name = name;
    g.sites.push_back(Site{modules[c.module]->path(), c.symbol->value, c.symbol->demangled});
  }
  std::vector<FunctionMatch> out;
  out.reserve(groups.size());
  for (auto& [name, g] : groups) out.push_back(std::move(g));
  return out;
}

std::vector<Site> resolve_location(const regions::Location& loc, const ElfFile& module) {
  using Kind = regions::Location::Kind;
  std::vector<Site> out;
  switch (loc.kind) {
    case Kind::Symbol:
      for (auto& match : match_functions(loc.symbol, {&module})) {
        for (auto& site : match.sites) out.push_back(std::move(site));
      }
      break;
    case Kind::FileLine:
      for (uint64_t addr : module.line_addresses(loc.file, loc.line)) {
        out.push_back(Site{module.path(), addr, ""});
      }
      break;
    case Kind::Address:
      for (const Segment& seg : module.segments()) {
        if (seg.exec && loc.address >= seg.vaddr && loc.address < seg.vaddr + seg.memsz) {
          out.push_back(Site{module.path(), loc.address, ""});
          break;
        }
      }
      break;
  }
  return out;
}

std::vector<std::string> all_function_names(const std::vector<const ElfFile*>& modules) {
  std::set<std::string_view> names;
  for (const ElfFile* m : modules) {
    for (const Symbol& s : m->functions()) {
      if (!is_cold_fragment(s.name)) names.insert(s.short_name);
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace roofprof::symbolizer
