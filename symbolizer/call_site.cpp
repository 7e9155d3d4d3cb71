#include "symbolizer/call_site.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace roofprof::symbolizer {
namespace {

const LoadedModule* holding(const std::vector<LoadedModule>& modules, uint64_t addr) {
  for (const auto& m : modules)
    if (addr >= m.start && addr < m.end) return &m;
  return nullptr;
}

}  // namespace

const LoadedModule* CallSiteNamer::module_of(pid_t pid, uint64_t addr) {
  auto it = modules_.find(pid);
  if (it != modules_.end())
    if (const auto* m = holding(it->second, addr)) return m;
  std::vector<LoadedModule> fresh;
  try {
    fresh = loaded_modules(pid, cache_);  // a module mapped since (dlopen), or the first address
  } catch (const UserError&) {
    return nullptr;  // the process is gone: the modules read while it ran are all there is
  }
  auto& mods = modules_[pid];
  mods = std::move(fresh);
  return holding(mods, addr);
}

void CallSiteNamer::add_module(pid_t pid, const std::string& path, uint64_t bias) {
  auto& mods = modules_[pid];
  for (const auto& m : mods)
    if (m.path == path) return;
  LoadedModule m;
  m.path = path;
  m.bias = bias;
  m.elf = cache_.get(path);
  if (!m.elf) return;
  bool first = true;
  for (const auto& seg : m.elf->segments()) {
    const uint64_t lo = bias + seg.vaddr, hi = lo + seg.memsz;
    m.start = first ? lo : std::min(m.start, lo);
    m.end = first ? hi : std::max(m.end, hi);
    first = false;
  }
  if (!first) mods.push_back(std::move(m));
}

std::string CallSiteNamer::name(pid_t pid, uint64_t return_address) {
  auto key = std::make_pair(pid, return_address);
  if (auto it = names_.find(key); it != names_.end()) return it->second;
  std::string out = fmt::format("{:#x}", return_address);
  if (const LoadedModule* m = module_of(pid, return_address); m && m->elf) {
    const uint64_t at = return_address - m->bias;
    const Symbol* fn = m->elf->function_at(at - 1);  // the call, not what follows it
    out = fn ? fn->short_name : fmt::format("{}+{:#x}", path_basename(m->path), at);
    if (auto line = m->elf->source_of(at - 1)) out += " (" + *line + ")";
  }
  names_.emplace(key, out);
  return out;
}

}  // namespace roofprof::symbolizer
