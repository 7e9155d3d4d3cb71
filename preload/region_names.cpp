#include "preload/region_names.hpp"

#include "common/strings.hpp"
#include "symbolizer/demangle.hpp"
#include "symbolizer/name_glob.hpp"

namespace roofprof::preload {

void RegionNames::add_modules(const AgentTable& table) {
  for (const auto& m : table.modules) {
    if (!seen_.insert(m.path).second) continue;
    auto elf = cache_.get(m.path);
    if (!elf) continue;  // not a readable ELF file any more: nothing to name from it
    planner_.probes_for(*elf, m.is_main);
    files_.push_back(std::move(elf));
  }
}

std::vector<regions::RegionId> RegionNames::regions_for(uint32_t spec, const std::string& symbol) const {
  std::vector<regions::RegionId> out;
  const std::string demangled = symbolizer::demangle(symbol);
  const auto& infos = planner_.regions();
  for (size_t id = 0; id < infos.size(); ++id) {
    const auto& info = infos[id];
    if (info.kind != regions::RegionKind::Function) continue;
    for (const auto& site : info.sites) {
      if (site.symbol == demangled || site.symbol == symbol) {
        out.push_back(regions::RegionId(id));
        break;
      }
    }
  }
  const auto& specs = planner_.specs();
  if (out.empty() && spec < specs.size() && specs[spec].kind == regions::RegionKind::Function &&
      !symbolizer::is_glob(specs[spec].start.symbol)) {
    for (size_t id = 0; id < infos.size(); ++id)
      if (infos[id].kind == regions::RegionKind::Function && infos[id].spec == specs[spec].text)
        out.push_back(regions::RegionId(id));
  }
  return out;
}

std::vector<const symbolizer::ElfFile*> RegionNames::modules() const {
  std::vector<const symbolizer::ElfFile*> out;
  for (const auto& f : files_) out.push_back(f.get());
  return out;
}

}  // namespace roofprof::preload
