#include "probes/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "symbolizer/debug_file.hpp"
#include "symbolizer/inlined.hpp"
#include "symbolizer/line_sites.hpp"
#include "symbolizer/modules.hpp"
#include "symbolizer/name_glob.hpp"
#include "symbolizer/suggest.hpp"

namespace roofprof::probes {

using regions::Location;
using regions::RegionKind;

const char* to_string(SiteRole r) {
  switch (r) {
    case SiteRole::Entry: return "entry";
    case SiteRole::SpanStart: return "start";
    case SiteRole::SpanStop: return "stop";
    case SiteRole::SpanResume: return "resume";
  }
  return "?";
}

namespace {

// Unknown region names that get a "closest names" hint (each costs a search of every symbol).
constexpr size_t kMaxSuggestedNames = 10;

// Does an address location name this module? "" = the main executable.
bool address_in_module(const Location& loc, const symbolizer::ElfFile& elf, bool is_main) {
  if (loc.module.empty()) return is_main;
  std::string base(path_basename(elf.path()));
  return base == loc.module || elf.path() == loc.module || base.rfind(loc.module, 0) == 0;
}

// A span whose STOP line comes before its START line in the same function is reversed: an error.
void check_span_order(const regions::RegionSpec& spec, const symbolizer::ElfFile& elf) {
  if (spec.start.kind != Location::Kind::FileLine || spec.stop.kind != Location::Kind::FileLine) return;
  auto start = symbolizer::resolve_line(elf, spec.start.file, spec.start.line);
  auto stop = symbolizer::resolve_line(elf, spec.stop.file, spec.stop.line);
  if (start.addresses.empty() || stop.addresses.empty() || stop.used_line >= start.used_line) return;
  for (const auto& f : stop.functions)
    if (start.functions.count(f))
      throw UserError(fmt::format("span '{}' is reversed: STOP {} comes before START {} in {}; write "
                                  "NAME=START..STOP with START first",
                                  spec.name, spec.stop.text, spec.start.text, f));
}

}  // namespace

bool is_system_library(std::string_view path) { return symbolizer::in_system_library_dir(path); }

Planner::Planner(std::vector<regions::RegionSpec> specs)
    : specs_(std::move(specs)),
      spec_start_found_(specs_.size()),
      spec_stop_found_(specs_.size()),
      spec_own_found_(specs_.size()) {
  // Plain names and spans have one region each, known up front, in the order given.
  for (size_t i = 0; i < specs_.size(); ++i) {
    const auto& s = specs_[i];
    if (s.kind == RegionKind::Span || !symbolizer::is_glob(s.name)) region_for(i, s.name);
  }
}

regions::RegionId Planner::region_for(size_t spec_index, const std::string& name) {
  auto key = std::make_pair(spec_index, name);
  auto it = by_spec_and_name_.find(key);
  if (it != by_spec_and_name_.end()) return it->second;
  auto id = regions::RegionId(regions_.size());
  RegionInfo info;
  info.name = name;
  info.kind = specs_[spec_index].kind;
  info.spec = specs_[spec_index].text;
  regions_.push_back(std::move(info));
  by_spec_and_name_.emplace(key, id);
  return id;
}

std::string ifunc_note(const PlannedProbe& p, std::string_view mechanism) {
  return fmt::format("{} in {} is an IFUNC (the dynamic linker chooses its implementation when the program runs): "
                     "{} would time only its resolver, so it is not measured that way; the in-process agent measures "
                     "its calls (the default mode, not --no-preload)",
                     p.symbol, path_basename(p.module), mechanism);
}

void Planner::add_site(regions::RegionId id, SiteRole role, const std::string& module, uint64_t addr,
                       const std::string& symbol, std::vector<PlannedProbe>& out, bool ifunc) {
  PlannedProbe p{id, role, module, addr, symbol, ifunc};
  regions_[id].sites.push_back(p);
  out.push_back(std::move(p));
}

const char* not_a_called_function(std::string_view name) {
  static const std::pair<const char*, const char*> kEntries[] = {
      {"_start", "the program's entry point, started by the kernel"},
      {"_dl_start", "the dynamic linker's entry point"},
      {"_dl_start_user", "the dynamic linker's entry point"},
      {"_dl_runtime_resolve*", "the lazy-binding trampoline, jumped to by the PLT"},
      {"_dl_runtime_profile*", "the lazy-binding trampoline, jumped to by the PLT"},
      {"_dl_tlsdesc_*", "a TLS descriptor resolver with its own calling convention"},
      {"__restore_rt", "the signal return trampoline"},
      {"__clone*", "clone: the new thread starts inside it"},
      {"clone", "clone: the new thread starts inside it"},
      {"clone3", "clone: the new thread starts inside it"},
  };
  for (const auto& [pattern, why] : kEntries)
    if (glob_match(pattern, name)) return why;
  return nullptr;
}

bool Planner::place_inlined_copies(size_t i, const symbolizer::ElfFile& elf, std::vector<PlannedProbe>& out) {
  const auto& spec = specs_[i];
  auto copies = symbolizer::match_inlined(spec.start.symbol, elf);
  if (copies.empty()) return false;
  auto id = region_for(i, spec.name);
  const size_t first_site = out.size();
  std::map<uint64_t, std::string> looped_entries;  // entry points its own code jumps back to, with their copy
  for (const symbolizer::InlinedCopy* c : copies) {
    const std::string where = c->call_site.empty() ? "" : " at " + c->call_site;
    symbolizer::CopyEdges e = elf.edges_of(*c);
    if (!e.why_not.empty()) {
      regions_[id].inlined_left_out.push_back(fmt::format("{} inlined{} in {}: {}", c->origin.short_name, where,
                                                          path_basename(elf.path()), e.why_not));
      continue;
    }
    // A call of the copy is control reaching its entry point from outside its code; the instance
    // closes where control leaves the code. Control coming back elsewhere (a re-entry) reopens
    // it as the same call; while open, reaching the entry or a re-entry again is no boundary.
    const std::string symbol = c->origin.short_name + where;
    if (e.entry_looped) looped_entries[e.entry] = symbol;
    const size_t first = out.size();
    add_site(id, SiteRole::SpanStart, elf.path(), e.entry, symbol, out);
    for (uint64_t a : e.reentries) add_site(id, SiteRole::SpanResume, elf.path(), a, symbol, out);
    for (uint64_t a : e.exits) add_site(id, SiteRole::SpanStop, elf.path(), a, symbol, out);
    if (e.entry_looped) {  // all of the copy's sites: a patched exit would never put back its lifted entry
      for (size_t k = first; k < out.size(); ++k) out[k].breakpoint_only = true;
      for (size_t k = regions_[id].sites.size() - (out.size() - first); k < regions_[id].sites.size(); ++k)
        regions_[id].sites[k].breakpoint_only = true;
    }
    if (!e.reentries.empty())
      regions_[id].calls_approximate.push_back(fmt::format(
          "{} inlined{} in {}: control comes back into its code at {} place{} other than its entry point {:#x} "
          "(its code is interleaved with its caller's)",
          c->origin.short_name, where, path_basename(elf.path()), e.reentries.size(),
          e.reentries.size() == 1 ? "" : "s", e.entry));
  }
  drop_stops_into_loops(id, elf, looped_entries, first_site, out);
  return true;
}

// A copy whose code runs straight into another copy's entry point that is the head of that
// copy's loop (two calls of an inlined function back to back): the first copy's exit there would
// also be reached on every pass of the second copy's loop and close and reopen its call each time.
// The exit is dropped: the first copy's call runs on through the second copy, one call for both,
// and the region says its calls are approximate.
void Planner::drop_stops_into_loops(regions::RegionId id, const symbolizer::ElfFile& elf,
                                    const std::map<uint64_t, std::string>& looped_entries, size_t first_site,
                                    std::vector<PlannedProbe>& out) {
  auto dropped = [&](const PlannedProbe& p) {
    return p.region == id && p.role == SiteRole::SpanStop && p.module == elf.path() &&
           looped_entries.count(p.address) && looped_entries.at(p.address) != p.symbol;
  };
  for (auto it = out.begin() + ptrdiff_t(first_site); it != out.end(); ++it)
    if (dropped(*it))
      regions_[id].calls_approximate.push_back(
          fmt::format("{} in {}: its code runs straight into {}'s loop, counted as one call with it", it->symbol,
                      path_basename(elf.path()), looped_entries.at(it->address)));
  out.erase(std::remove_if(out.begin() + ptrdiff_t(first_site), out.end(), dropped), out.end());
  auto& sites = regions_[id].sites;
  sites.erase(std::remove_if(sites.begin(), sites.end(), dropped), sites.end());
}

std::vector<PlannedProbe> Planner::probes_for(const symbolizer::ElfFile& elf, bool is_main) {
  std::vector<PlannedProbe> out;
  std::vector<const symbolizer::ElfFile*> one{&elf};
  for (size_t i = 0; i < specs_.size(); ++i) {
    const auto& spec = specs_[i];
    if (spec.kind == RegionKind::Function) {
      auto matches = symbolizer::match_functions(spec.start.symbol, one);
      const bool copies = !is_system_library(elf.path()) && place_inlined_copies(i, elf, out);
      if (matches.empty()) {
        if (copies) spec_start_found_[i] = spec_own_found_[i] = true;
        continue;
      }
      // "f(int) [clone .isra.0]", "scale(float*, int)", "operator*" have glob characters but are no globs.
      bool glob = symbolizer::is_glob(spec.start.symbol);
      bool system = !is_main && is_system_library(elf.path());
      // A plain name is one region, like a gdb breakpoint with several locations: overloads,
      // the function in several scopes, its clones. The program's own modules win over system
      // libraries: matches there are left out (and said so) once the program has the name.
      if (!glob && system && spec_own_found_[i]) {
        std::vector<std::string> names;
        for (const auto& m : matches) names.push_back(m.name);
        regions_[region_for(i, spec.name)].left_out.push_back(
            fmt::format("{} in {}", fmt::join(names, ", "), path_basename(elf.path())));
        continue;
      }
      for (const auto& m : matches) {
        if (const char* why = not_a_called_function(m.name)) {
          if (glob) continue;  // a glob such as '_*' leaves such code alone
          throw UserError(fmt::format("region '{}' cannot be measured: {} is {}, not a function that is called; "
                                      "choose a function it calls",
                                      spec.text, m.name, why));
        }
        auto id = region_for(i, glob ? m.name : spec.name);
        for (const auto& site : m.sites) add_site(id, SiteRole::Entry, site.module, site.address, site.symbol, out, site.ifunc);
      }
      spec_start_found_[i] = true;
      if (!system) spec_own_found_[i] = true;
      continue;
    }
    // Span: START and STOP may lie in different modules.
    check_span_order(spec, elf);
    auto id = region_for(i, spec.name);
    auto place = [&](const Location& loc, SiteRole role, std::vector<bool>& found) {
      if (loc.kind == Location::Kind::Address && !address_in_module(loc, elf, is_main)) return;
      for (const auto& site : symbolizer::resolve_location(loc, elf)) {
        add_site(id, role, site.module.empty() ? elf.path() : site.module, site.address, site.symbol, out);
        found[i] = true;
      }
    };
    place(spec.start, SiteRole::SpanStart, spec_start_found_);
    place(spec.stop, SiteRole::SpanStop, spec_stop_found_);
  }
  return out;
}

std::vector<Planner::Unresolved> Planner::unresolved() const {
  std::vector<Unresolved> out;
  for (size_t i = 0; i < specs_.size(); ++i)
    if (!spec_start_found_[i] || (specs_[i].kind == RegionKind::Span && !spec_stop_found_[i]))
      out.push_back({specs_[i].text, i < spec_why_.size() ? spec_why_[i] : std::string()});
  return out;
}

std::vector<std::string> Planner::check_resolved(const std::vector<const symbolizer::ElfFile*>& modules,
                                                 bool more_may_load, std::string_view hint) const {
  // Every spec's reason is recorded (unresolved()) before the first one is thrown.
  std::vector<std::pair<size_t, std::string>> missing_what;
  spec_why_.assign(specs_.size(), std::string());
  // Every function name once, and the closest names for the first few distinct unknown names
  // only: thousands of unknown regions cost one pass each, not one search of every symbol.
  std::vector<std::string> names;
  std::map<std::string, std::string, std::less<>> hints;
  auto closest_hint = [&](const std::string& symbol) -> std::string {
    if (auto it = hints.find(symbol); it != hints.end()) return it->second;
    if (hints.size() >= kMaxSuggestedNames) return "";
    if (names.empty()) names = symbolizer::all_function_names(modules);
    // Quoted: a suggested name ("gebp_kernel<double, double, long>::operator()") may hold ", ".
    std::string hint;
    for (const auto& n : symbolizer::closest_names(symbol, names, 5))
      hint += fmt::format("{}'{}'", hint.empty() ? "; closest names: " : ", ", n);
    return hints[symbol] = hint;
  };
  // A stripped program or library of its own names only its exported functions: said with the
  // debug file and package that would name the rest (symbolizer/debug_file.hpp).
  std::optional<std::string> stripped;
  auto stripped_notes = [&]() -> const std::string& {
    if (!stripped) {
      stripped.emplace();
      for (const auto* m : modules)
        if (!is_system_library(m->path()))
          if (auto note = m->stripped_note()) *stripped += "; " + *note;
    }
    return *stripped;
  };
  for (size_t i = 0; i < specs_.size(); ++i) {
    const auto& spec = specs_[i];
    std::vector<const Location*> missing;
    if (!spec_start_found_[i]) missing.push_back(&spec.start);
    if (spec.kind == RegionKind::Span && !spec_stop_found_[i]) missing.push_back(&spec.stop);
    for (const Location* loc : missing) {
      std::string what;
      if (loc->kind == Location::Kind::Symbol) {
        what = fmt::format("no function '{}' in the executable or its {} libraries{}", shorten_for_message(loc->symbol),
                           modules.empty() ? 0 : modules.size() - 1, closest_hint(loc->symbol)) + stripped_notes();
      } else if (loc->kind == Location::Kind::FileLine) {
        what = fmt::format("no code for {} in any module with debug info (build with -g?)", loc->text);
      } else {
        what = fmt::format("address {} is not in the code of {}", loc->text,
                           loc->module.empty() ? "the executable" : loc->module);
      }
      spec_why_[i] += (spec_why_[i].empty() ? "" : "; ") + what + std::string(hint);
      missing_what.emplace_back(i, std::move(what));
    }
  }
  if (!more_may_load && !missing_what.empty()) {
    const auto& [i, what] = missing_what.front();
    throw UserError(fmt::format("unknown region '{}': {}{}", shorten_for_message(specs_[i].text), what, hint));
  }
  std::vector<std::string> warnings;
  for (const auto& [i, what] : missing_what)
    warnings.push_back(
        fmt::format("region '{}' not found yet ({}); watching libraries loaded later{}",
                    shorten_for_message(specs_[i].text), what, hint));
  return warnings;
}

}  // namespace roofprof::probes
