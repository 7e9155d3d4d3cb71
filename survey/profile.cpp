#include "survey/profile.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "probes/entry_patch.hpp"
#include "probes/plan.hpp"

namespace roofprof::survey {

namespace {

constexpr uint64_t kKernelStart = 0xffff800000000000ull;

// A function the samples fell in: (module, link-time entry); entry 0 without a symbol.
using Key = std::pair<std::string, uint64_t>;

struct Where {
  Key key;
  const symbolizer::Symbol* symbol = nullptr;
  std::shared_ptr<symbolizer::ElfFile> elf;
};

class Resolver {
 public:
  Resolver(const std::vector<Mapping>& maps, symbolizer::ElfCache& cache) : maps_(maps), cache_(cache) {}

  // nullopt: the address is in no executable mapping of a file (a broken frame-pointer chain).
  std::optional<Where> at(uint32_t pid, uint64_t addr) {
    if (addr >= kKernelStart) return Where{{"", 0}, nullptr, nullptr};
    const Mapping* m = mapping_of(pid, addr);
    if (!m) return std::nullopt;
    auto elf = cache_.get(m->path);
    if (!elf) return Where{{m->path, 0}, nullptr, nullptr};
    const uint64_t file_offset = addr - m->start + m->pgoff;
    for (const auto& seg : elf->segments()) {
      if (!seg.exec || file_offset < seg.offset || file_offset >= seg.offset + seg.filesz) continue;
      const symbolizer::Symbol* s = elf->function_at(file_offset - seg.offset + seg.vaddr);
      if (s) return Where{{m->path, s->value}, s, elf};
    }
    return Where{{m->path, 0}, nullptr, elf};
  }

 private:
  // The program's latest mapping of `addr`; a forked child inherits its parent's (no record).
  const Mapping* mapping_of(uint32_t pid, uint64_t addr) const {
    const Mapping* any = nullptr;
    for (auto it = maps_.rbegin(); it != maps_.rend(); ++it) {
      if (addr < it->start || addr >= it->start + it->len) continue;
      if (it->pid == pid) return &*it;
      if (!any) any = &*it;
    }
    return any;
  }
  const std::vector<Mapping>& maps_;
  symbolizer::ElfCache& cache_;
};

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

result::SurveyFunction describe(const Where& w) {
  result::SurveyFunction f;
  f.module = w.key.first;
  f.probe = "none";
  if (!w.symbol) {
    f.name = f.module.empty() ? "[kernel]" : "[unknown in " + base_name(f.module) + "]";
    return f;
  }
  f.name = w.symbol->demangled;
  f.symbol = w.symbol->name;
  f.address = w.symbol->value;
  f.source = w.elf->source_of(w.symbol->value);
  f.probe = probe_method(*w.elf, *w.symbol);
  return f;
}

}  // namespace

std::string probe_method(const symbolizer::ElfFile& elf, const symbolizer::Symbol& symbol) {
  if (probes::not_a_called_function(symbol.name)) return "none";  // entered without a call
  if (symbol.ifunc) return "agent";
  for (const auto& seg : elf.segments()) {
    if (!seg.exec || symbol.value < seg.vaddr || symbol.value + symbol.size > seg.vaddr + seg.filesz) continue;
    std::vector<uint8_t> code(symbol.size);
    std::ifstream in(elf.path(), std::ios::binary);
    in.seekg(std::streamoff(symbol.value - seg.vaddr + seg.offset));
    if (!in.read(reinterpret_cast<char*>(code.data()), std::streamsize(code.size()))) break;
    auto plan = probes::plan_entry_patch(code, symbol.value, {});
    return std::holds_alternative<probes::EntryPatch>(plan) ? "patch" : "breakpoint";
  }
  return "breakpoint";
}

result::Survey build_survey(const Samples& samples, symbolizer::ElfCache& cache) {
  Resolver resolve(samples.mappings, cache);
  std::map<Key, result::SurveyFunction> functions;
  auto count = [&](const Where& w) -> result::SurveyFunction& {
    auto it = functions.find(w.key);
    if (it == functions.end()) it = functions.emplace(w.key, describe(w)).first;
    return it->second;
  };
  for (const Sample& s : samples.samples) {
    auto leaf = resolve.at(s.pid, s.ip);
    if (!leaf) leaf = Where{{"", 1}, nullptr, nullptr};  // code in no file: JIT, vdso
    std::set<Key> seen{leaf->key};
    result::SurveyFunction& self = count(*leaf);
    if (leaf->key == Key{"", 1}) self.name = "[anonymous code]";
    ++self.self_samples;
    ++self.total_samples;
    for (uint64_t ret : s.callers) {
      auto caller = resolve.at(s.pid, ret - 1);  // the call instruction, not the one after it
      if (!caller || !caller->symbol) break;     // the frame-pointer chain went astray
      if (seen.insert(caller->key).second) ++count(*caller).total_samples;
    }
  }
  result::Survey out;
  out.event = "cpu-clock";
  out.period_s = samples.period_s;
  out.samples = samples.samples.size();
  out.lost = samples.lost;
  for (auto& [key, f] : functions) out.functions.push_back(std::move(f));
  std::sort(out.functions.begin(), out.functions.end(), [](const auto& a, const auto& b) {
    return std::tie(b.self_samples, b.total_samples, a.name) < std::tie(a.self_samples, a.total_samples, b.name);
  });
  return out;
}

}  // namespace roofprof::survey
