// Entry patches (combined mode, docs/preload.md "Entry patches"): the tracer rewrites the first
// bytes of a region function into a jump to a thunk that enters the in-process agent, which
// records the call without a ptrace stop. A patch is written while the module's code has not
// run yet (at the dynamic linker's notification that new modules are mapped, before their
// relocation and constructors), so no thread can be inside the bytes it replaces.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "common/error.hpp"
#include "common/mapped_file.hpp"
#include "common/strings.hpp"
#include "preload/patch_format.h"
#include "preload/probe_rules.h"
#include "probes/entry_patch.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {

namespace {

constexpr uint64_t kMaxScannedBytes = 1u << 20;  // a longer function is scanned this far only

// Functions entered without a return address on the stack: the agent would take the word at
// the stack pointer for one and replace it (argc at a program's entry point, the signal frame
// at the signal restorer). Breakpoints check each entry instead (follows_a_call).
bool entered_without_a_call(const symbolizer::ElfFile& elf, const symbolizer::Symbol& s) {
  return s.value == elf.entry() || s.name == "__restore_rt" || s.name == "__start_context" ||
         s.name == "_start" || s.name == "_dl_start_user";
}

}  // namespace

bool Session::defer_for_agent(Task& t, const symbolizer::LoadedModule& m, bool is_main) {
  ThreadGroup& g = *t.group;
  if (!opts_.agent || !g.measured) return false;
  if (path_basename(m.path) == kAgentModule && !g.patch_entry) {
    for (const auto& s : m.elf->functions()) {
      if (s.name == RP_PATCH_ENTRY_SYMBOL) g.patch_entry = TraceeAddr(m.bias + s.value);
      if (s.name == RP_PATCH_SPAN_SYMBOL) g.patch_span = TraceeAddr(m.bias + s.value);
    }
    if (g.patch_entry) place_deferred(t);
  }
  if (g.patch_entry || g.initial_check_done) return false;
  g.deferred.emplace_back(std::make_pair(m.path, m.start), is_main);
  return true;
}

// In the order the modules appeared: the executable (mapped at exec) first.
void Session::place_deferred(Task& t) {
  ThreadGroup& g = *t.group;
  auto waiting = std::move(g.deferred);
  g.deferred.clear();
  for (const auto& [key, is_main] : waiting) {
    auto it = g.modules.find(key);
    if (it != g.modules.end()) place_region_probes(t, it->second, is_main, runtime_hooks(*it->second.elf, is_main));
  }
}

// Whether code outside the function jumps into (entry, entry + len): a rel32 anywhere in the
// module (a byte scan of its file's code: common/mapped_file.hpp), or a rel8 of a function within
// reach.
std::optional<std::string> Session::jumped_into(Task& t, const symbolizer::LoadedModule& m,
                                                const symbolizer::Symbol& self, uint64_t entry, size_t len) {
  const TraceeMemory& mem = t.group->as->mem();
  auto key = std::make_pair(m.path, m.bias);
  auto it = rel32_index_.find(key);
  if (it == rel32_index_.end()) {
    uint64_t lo = UINT64_MAX, hi = 0;  // runtime span of the code segments
    for (const auto& seg : m.elf->segments())
      if (seg.exec && seg.filesz > 0)
        lo = std::min(lo, m.bias + seg.vaddr), hi = std::max(hi, m.bias + seg.vaddr + seg.filesz);
    std::vector<uint64_t> all;
    const MappedFile file(m.path);
    for (const auto& seg : m.elf->segments()) {
      if (!seg.exec || seg.filesz == 0) continue;
      std::vector<uint8_t> copy;  // the file's bytes, or the tracee's where the file is gone
      std::span<const uint8_t> text;
      if (file.ok() && seg.offset <= file.bytes().size() && seg.filesz <= file.bytes().size() - seg.offset) {
        text = file.bytes().subspan(seg.offset, seg.filesz);
      } else {
        copy.resize(seg.filesz);
        if (!mem.read(TraceeAddr(m.bias + seg.vaddr), copy.data(), copy.size())) continue;
        text = copy;
      }
      auto found = probes::rel32_targets(text, m.bias + seg.vaddr, lo, hi);  // an entry is in the module's code
      all.insert(all.end(), found.begin(), found.end());
    }
    std::sort(all.begin(), all.end());
    it = rel32_index_.emplace(key, std::move(all)).first;
  }
  const auto& targets = it->second;
  auto hit = std::upper_bound(targets.begin(), targets.end(), entry);
  if (hit != targets.end() && *hit < entry + len)
    return fmt::format("code elsewhere in the module jumps into its first {} bytes", len);
  // rel8 jumps reach 128 bytes: the functions around it, decoded from their starts.
  constexpr uint64_t kReach = 130;
  // functions() is sorted by address: start a little before, at the first that may reach.
  const auto& fns = m.elf->functions();
  const uint64_t link_entry = entry - m.bias;
  auto first = std::lower_bound(fns.begin(), fns.end(), link_entry > (1u << 20) ? link_entry - (1u << 20) : 0,
                                [](const symbolizer::Symbol& f, uint64_t v) { return f.value < v; });
  for (auto it = first; it != fns.end() && it->value < link_entry + len + kReach; ++it) {
    const symbolizer::Symbol& s = *it;
    if (s.value == self.value || s.size == 0) continue;
    uint64_t lo = m.bias + s.value, hi = lo + s.size;
    if (hi + kReach <= entry || lo >= entry + len + kReach) continue;
    std::vector<uint8_t> code(std::min<uint64_t>(s.size, entry + len + kReach - lo));
    if (!mem.read(TraceeAddr(lo), code.data(), code.size())) continue;
    for (uint64_t target : probes::branch_targets(code, lo))
      if (target > entry && target < entry + len)
        return fmt::format("{} jumps into its first {} bytes", s.name, len);
  }
  return std::nullopt;
}

std::optional<std::string> Session::write_patch(Task& t, const symbolizer::LoadedModule& m,
                                                const symbolizer::Symbol& sym, TraceeAddr site,
                                                const std::variant<probes::EntryPatch, std::string>& plan,
                                                const ThunkCode& thunk_code) {
  if (auto* why = std::get_if<std::string>(&plan)) return *why;
  const auto& patch = std::get<probes::EntryPatch>(plan);
  if (auto why = jumped_into(t, m, sym, site.value(), patch.original.size())) return why;
  ThreadGroup& g = *t.group;
  TraceeAddr thunk = g.as->take_code(site, RP_PATCH_THUNK_BYTES,
                                     [&](TraceeAddr near, size_t size) { return map_scratch(t, near, size); });
  if (!thunk) return std::string("no scratch page could be mapped near it");
  try {
    auto jump = probes::entry_jump(patch, thunk.value());
    auto body = thunk_code(patch, thunk.value());
    if (!g.as->mem().write(thunk, body.data(), body.size()) || !g.as->mem().write(site, jump.data(), jump.size()))
      return std::string("its code cannot be written");
  } catch (const UserError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::set<uint64_t> Session::patch_entries(Task& t, const symbolizer::LoadedModule& m,
                                          const std::vector<probes::PlannedProbe>& planned,
                                          const std::set<uint64_t>& busy, std::map<uint64_t, std::string>* refused) {
  ThreadGroup& g = *t.group;
  std::set<uint64_t> done;
  if (!opts_.agent || !g.patch_entry || agent_never_measures(m.path)) return done;
  std::map<uint64_t, std::vector<regions::RegionId>> entries;
  std::vector<uint64_t> sites;  // absolute: every other probe of the module
  for (const auto& p : planned) {
    sites.push_back(m.bias + p.address);
    if (p.role == probes::SiteRole::Entry && !p.ifunc) entries[p.address].push_back(p.region);
  }
  for (uint64_t b : busy) sites.push_back(m.bias + b);
  for (auto& [address, regions] : entries) {
    std::sort(regions.begin(), regions.end());
    regions.erase(std::unique(regions.begin(), regions.end()), regions.end());
    if (busy.count(address)) continue;
    const symbolizer::Symbol* sym = m.elf->function_at(address);
    const std::string name = sym ? sym->name : fmt::format("{:#x}", address);
    auto refuse = [&](const std::string& why) {
      (*refused)[address] = fmt::format("region '{}': the entry of {} ({}) cannot be patched ({}): a breakpoint "
                                        "measures it, a ptrace stop per call",
                                        planner_.regions().at(regions.front()).name, name, path_basename(m.path), why);
    };
    if (auto why = opts_.agent->patch_refusal(regions)) {
      if (*why != "--no-patch") refuse(*why);
      continue;
    }
    if (!sym || sym->value != address || sym->size == 0) {
      refuse("its size is unknown");
      continue;
    }
    if (entered_without_a_call(*m.elf, *sym)) {
      refuse("it is entered without a call");
      continue;
    }
    if (rp_keeps_return_address(sym->name.c_str())) {
      refuse("it keeps its return address to return through it again");
      continue;
    }
    const TraceeAddr entry(m.bias + address);
    std::vector<uint8_t> code(std::min(sym->size, kMaxScannedBytes));
    if (!g.as->mem().read(entry, code.data(), code.size())) {
      refuse("its code cannot be read");
      continue;
    }
    auto plan = probes::plan_entry_patch(code, entry.value(), sites);
    auto why = write_patch(t, m, *sym, entry, plan, [&](const probes::EntryPatch& patch, uint64_t thunk) {
      return probes::thunk_code(patch, thunk, g.patch_entry.value(), opts_.agent->patched(regions));
    });
    if (why) {
      refuse(*why);
      continue;
    }
    done.insert(address);
  }
  return done;
}

// An inlined copy's boundaries are span sites of a function region (a user's span has its
// START and STOP in a span region; those keep breakpoints).
std::set<uint64_t> Session::patch_spans(Task& t, const symbolizer::LoadedModule& m,
                                        const std::vector<probes::PlannedProbe>& planned,
                                        const std::set<uint64_t>& busy, std::map<uint64_t, std::string>* refused) {
  ThreadGroup& g = *t.group;
  std::set<uint64_t> done;
  if (!opts_.agent || !g.patch_span || agent_never_measures(m.path)) return done;
  std::map<uint64_t, std::vector<const probes::PlannedProbe*>> at;
  std::vector<uint64_t> sites;  // absolute: every other probe of the module
  for (const auto& p : planned) {
    sites.push_back(m.bias + p.address);
    at[p.address].push_back(&p);
  }
  for (uint64_t b : busy) sites.push_back(m.bias + b);
  for (const auto& [address, here] : at) {
    const probes::PlannedProbe& p = *here.front();
    if (p.role == probes::SiteRole::Entry || p.breakpoint_only ||
        planner_.regions().at(p.region).kind != regions::RegionKind::Function)
      continue;
    auto refuse = [&](const std::string& why) {
      (*refused)[address] = fmt::format("region '{}': the {} of its inlined copy {} at {:#x} ({}) cannot be patched "
                                        "({}): a breakpoint measures it, a ptrace stop each time it is reached",
                                        planner_.regions().at(p.region).name,
                                        p.role == probes::SiteRole::SpanStart  ? "entry point"
                                        : p.role == probes::SiteRole::SpanStop ? "exit"
                                                                               : "re-entry",
                                        p.symbol, address, path_basename(m.path), why);
    };
    if (here.size() > 1) {
      refuse("other probes share its address");
      continue;
    }
    if (busy.count(address) || opts_.agent->patch_refusal({p.region})) continue;
    const symbolizer::Symbol* sym = m.elf->function_at(address);
    if (!sym || sym->size == 0) {
      refuse("the function holding it has no size");
      continue;
    }
    const TraceeAddr start(m.bias + sym->value), site(m.bias + address);
    std::vector<uint8_t> code(std::min(sym->size, kMaxScannedBytes));
    if (!g.as->mem().read(start, code.data(), code.size())) {
      refuse("its code cannot be read");
      continue;
    }
    auto plan = probes::plan_span_patch(code, start.value(), site.value(), sites);
    auto why = write_patch(t, m, *sym, site, plan, [&](const probes::EntryPatch& patch, uint64_t thunk) {
      return probes::span_thunk_code(patch, thunk, g.patch_span.value(), opts_.agent->patched({p.region}),
                                     uint32_t(p.role));
    });
    if (why) {
      refuse(*why);
      continue;
    }
    done.insert(address);
  }
  return done;
}

}  // namespace roofprof::tracer
