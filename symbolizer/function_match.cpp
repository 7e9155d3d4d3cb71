#include "symbolizer/function_match.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/strings.hpp"
#include "symbolizer/demangle.hpp"
#include "symbolizer/inlined.hpp"
#include "common/error.hpp"
#include "symbolizer/line_sites.hpp"
#include "symbolizer/linespec.hpp"
#include "symbolizer/modules.hpp"
#include "symbolizer/name_glob.hpp"

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

// The file and line of a lambda pattern ("main::lambda@prog.cpp:42") are where the lambda is
// written (its closure type's DW_AT_decl_line) or, as gdb would place a breakpoint on it, the
// line the line table gives its first instruction.
bool at_lambda_line(const LambdaRef& ref, const ElfFile& module, uint64_t address) {
  auto same_file = [&](std::string_view file) { return ref.file.empty() || file == path_basename(ref.file); };
  if (auto place = module.lambda_place(address); place && place->second == ref.line && same_file(place->first))
    return true;
  auto where = module.source_of(address);
  if (!where) return false;
  size_t colon = where->rfind(':');
  return where->substr(colon + 1) == std::to_string(ref.line) && same_file(where->substr(0, colon));
}

// FortranReexport or FortranGeneric (match_tier) for a Fortran module procedure.
MatchTier fortran_tier(const LinespecName& parsed, const Symbol& s) {
  if (parsed.scopes.empty() || parsed.scopes.size() > 2 || s.demangled != s.name) return MatchTier::None;
  auto proc = fortran_module_procedure(strip_clone_suffix(strip_version(s.name)));
  if (!proc) return MatchTier::None;
  const std::string& module = (*proc)[0];
  const std::string& name = (*proc)[1];
  const std::string& want = parsed.scopes.back();
  const bool qualified = parsed.scopes.size() == 2;
  if (qualified && name == want && module != parsed.scopes.front()) return MatchTier::FortranReexport;
  if ((!qualified || module == parsed.scopes.front()) && name.size() > want.size() + 1 && name.starts_with(want) &&
      name[want.size()] == '_')
    return MatchTier::FortranGeneric;
  return MatchTier::None;
}

}  // namespace

bool may_answer_to(const LinespecName& parsed, const Symbol& s) {
  // Cheap test first: the pattern's last identifier is spelled in the symbol's (mangled) name.
  // Operators, destructors and lambdas are spelled otherwise in mangled names ("cl", "D1",
  // "UlvE_"): only the linespec comparison can tell.
  if (parsed.lambda) return s.demangled.find("{lambda(") != std::string::npos;
  const std::string& last = parsed.scopes.empty() ? std::string() : parsed.scopes.back();
  if (last.starts_with("operator") || last.starts_with("~")) return s.demangled != s.name;
  std::string_view ident = std::string_view(last).substr(0, last.find('<'));
  return !ident.empty() && s.name.find(ident) != std::string::npos;
}

MatchTier match_tier(std::string_view pattern, const LinespecName& parsed, const Symbol& s) {
  if (is_cold_fragment(s.name)) return MatchTier::None;
  // Exact names first: "f(int) [clone .isra.0]" has glob characters but names one function.
  if (s.name == pattern || s.short_name == pattern || s.demangled == pattern) return MatchTier::Name;
  if (is_glob(pattern)) return glob_matches(pattern, s) ? MatchTier::Name : MatchTier::None;
  if (!may_answer_to(parsed, s)) return MatchTier::None;
  if (strip_clone_suffix(s.name) == pattern || strip_clone_suffix(s.demangled) == pattern ||
      display_name(s) == pattern)
    return MatchTier::Name;
  MatchTier best = MatchTier::None;
  for (const auto& n : linespec_names(s)) {
    if (!linespec_matches(parsed, n)) continue;
    if (!n.fortran_external) return MatchTier::Name;
    best = MatchTier::FortranExternal;
  }
  if (best == MatchTier::None && !parsed.params && !parsed.lambda) best = fortran_tier(parsed, s);
  return best;
}

std::vector<FunctionMatch> match_functions(std::string_view pattern,
                                           const std::vector<const ElfFile*>& modules) {
  // 1. Matching symbols, aliases (same module, same address) merged into one candidate. A
  // Fortran external's spelling without '_', a module's re-exported name and a generic
  // interface's specific procedures count only where nothing matches better (MatchTier).
  LinespecName parsed = parse_linespec(pattern);
  std::map<MatchTier, std::map<std::pair<size_t, uint64_t>, const Symbol*>> tiers;
  for (size_t m = 0; m < modules.size(); ++m) {
    for (const Symbol& s : modules[m]->functions()) {
      MatchTier tier = match_tier(pattern, parsed, s);
      if (tier == MatchTier::None) continue;
      if (parsed.lambda && !at_lambda_line(*parsed.lambda, *modules[m], s.value)) continue;
      auto [it, inserted] = tiers[tier].try_emplace({m, s.value}, &s);
      if (!inserted && better_representative(s, *it->second, pattern)) it->second = &s;
    }
  }
  // The best tier that matched (MatchTier's order).
  std::map<std::pair<size_t, uint64_t>, const Symbol*> sites;
  if (!tiers.empty()) sites = std::move(tiers.begin()->second);
  std::vector<Candidate> found;
  for (const auto& [key, sym] : sites) found.push_back(Candidate{key.first, sym});

  // 2. Display names: the function's name (clones under their origin's), unless two different
  // signatures share it (overloads) or the pattern chose by signature ('s*(float*, int)'): then
  // its name with its signature, so that overloads matched by two patterns stay apart.
  std::map<std::string, std::set<std::string>> signatures;
  for (const auto& c : found) signatures[display_name(*c.symbol)].insert(strip_clone_suffix(c.symbol->demangled));
  auto display = [&](const Symbol& s) {
    std::string name = display_name(s);
    bool by_signature = parsed.params && s.demangled != s.name && is_glob(pattern);
    return signatures[name].size() > 1 || by_signature ? strip_clone_suffix(s.demangled) : name;
  };

  // 3. Group sites by display name; sites in module order, then address.
  std::map<std::string, FunctionMatch> groups;
  for (const auto& c : found) {
    std::string name = display(*c.symbol);
    FunctionMatch& g = groups[name];
    g.name = name;
    g.sites.push_back(Site{modules[c.module]->path(), c.symbol->value, c.symbol->demangled, c.symbol->ifunc});
  }
  std::vector<FunctionMatch> out;
  out.reserve(groups.size());
  for (auto& [name, g] : groups) out.push_back(std::move(g));
  return out;
}

std::vector<const InlinedCopy*> match_inlined(std::string_view pattern, const ElfFile& module) {
  std::vector<const InlinedCopy*> out;
  if (is_glob(pattern)) return out;
  const LinespecName parsed = parse_linespec(pattern);
  if (parsed.lambda) return out;
  for (const InlinedCopy& c : module.inlined())
    if (match_tier(pattern, parsed, c.origin) == MatchTier::Name) out.push_back(&c);
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
    case Kind::FileLine: {
      LineSites line = resolve_line(module, loc.file, loc.line);
      if (!line.error.empty()) throw UserError(line.error);
      for (uint64_t addr : line.addresses) out.push_back(Site{module.path(), addr, "", false});
      break;
    }
    case Kind::Address:
      for (const Segment& seg : module.segments()) {
        if (seg.exec && loc.address >= seg.vaddr && loc.address < seg.vaddr + seg.memsz) {
          out.push_back(Site{module.path(), loc.address, "", false});
          break;
        }
      }
      break;
  }
  return out;
}

std::vector<std::string> all_function_names(const std::vector<const ElfFile*>& modules) {
  std::set<std::string> names;
  for (const ElfFile* m : modules) {
    for (const Symbol& s : m->functions()) {
      if (!is_cold_fragment(s.name)) names.insert(display_name(s));
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace roofprof::symbolizer
