#include "symbolizer/modules.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace roofprof::symbolizer {

namespace {

bool parse_maps_line(const std::string& text, Mapping& m) {
  // start-end perms offset dev inode [path]
  std::istringstream in(text);
  std::string range, dev;
  if (!(in >> range >> m.perms >> std::hex >> m.offset >> dev >> std::dec >> m.inode)) return false;
  size_t dash = range.find('-');
  if (dash == std::string::npos) return false;
  m.start = std::stoull(range.substr(0, dash), nullptr, 16);
  m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
  std::string rest;
  std::getline(in, rest);
  size_t first = rest.find_first_not_of(' ');
  m.path = first == std::string::npos ? "" : rest.substr(first);
  return true;
}

// A mapping of a regular file that still exists on disk.
bool is_file_mapping(const Mapping& m) {
  return !m.path.empty() && m.path[0] == '/' && !m.path.ends_with(" (deleted)");
}

uint64_t page_down(uint64_t v) {
  static const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  return v & ~(page - 1);
}

// bias = start of the mapping holding the first PT_LOAD's page-aligned offset minus that
// PT_LOAD's page-aligned vaddr.
std::optional<uint64_t> load_bias(const ElfFile& elf, const std::vector<const Mapping*>& maps) {
  if (elf.segments().empty()) return std::nullopt;
  const Segment& first = elf.segments().front();
  uint64_t off = page_down(first.offset), vaddr = page_down(first.vaddr);
  for (const Mapping* m : maps) {
    if (m->offset == off) return m->start - vaddr;
  }
  // The dynamic linker may have merged mappings: any mapping containing that file offset.
  for (const Mapping* m : maps) {
    if (off > m->offset && off < m->offset + (m->end - m->start)) return m->start + (off - m->offset) - vaddr;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Mapping> read_maps(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream in(path);
  if (!in) {
    throw UserError("cannot read " + path + ": " + std::strerror(errno) +
                    "; check that process " + std::to_string(pid) + " exists and that you may trace it");
  }
  std::vector<Mapping> out;
  std::string line;
  while (std::getline(in, line)) {
    Mapping m;
    if (parse_maps_line(line, m)) out.push_back(std::move(m));
  }
  return out;
}

std::shared_ptr<ElfFile> ElfCache::get(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second;
  std::shared_ptr<ElfFile> elf;
  try {
    elf = ElfFile::open(path);
  } catch (const UserError&) {
    elf = nullptr;
  }
  files_.emplace(path, elf);
  return elf;
}

std::vector<LoadedModule> loaded_modules(pid_t pid, ElfCache& cache) {
  std::vector<Mapping> maps = read_maps(pid);
  // Group by path, keeping first-appearance order (the executable comes first).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Mapping*>> by_path;
  for (const auto& m : maps) {
    if (!is_file_mapping(m)) continue;
    auto [it, inserted] = by_path.try_emplace(m.path);
    if (inserted) order.push_back(m.path);
    it->second.push_back(&m);
  }
  std::vector<LoadedModule> out;
  for (const auto& path : order) {
    const auto& group = by_path[path];
    std::shared_ptr<ElfFile> elf = cache.get(path);
    if (!elf) continue;
    bool has_code = false;
    for (const Mapping* m : group) has_code = has_code || m->perms.find('x') != std::string::npos;
    if (!has_code) continue;  // data mapping of an ELF file, or a library still being mapped
    std::optional<uint64_t> bias = load_bias(*elf, group);
    if (!bias) continue;  // an ELF file mapped as data, not loaded
    LoadedModule mod;
    mod.path = path;
    mod.bias = *bias;
    mod.start = group.front()->start;
    mod.end = group.front()->end;
    for (const Mapping* m : group) {
      mod.start = std::min(mod.start, m->start);
      mod.end = std::max(mod.end, m->end);
    }
    mod.elf = std::move(elf);
    out.push_back(std::move(mod));
  }
  return out;
}

}  // namespace roofprof::symbolizer
