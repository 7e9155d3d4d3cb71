#include "survey/profile.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "common/strings.hpp"
#include "probes/entry_patch.hpp"
#include "probes/plan.hpp"
#include "symbolizer/inlined.hpp"

namespace roofprof::survey {

namespace {

constexpr uint64_t kKernelStart = 0xffff800000000000ull;

// A function the samples fell in: (module, link-time entry); entry 0 without a symbol.
using Key = std::pair<std::string, uint64_t>;

struct Where {
  Key key;
  const symbolizer::Symbol* symbol = nullptr;
  std::shared_ptr<symbolizer::ElfFile> elf;
  uint64_t vaddr = 0;  // link-time address in `elf`
};

// The inlined copies of one module (DWARF) by where they begin, to find the innermost copy
// holding an address: nested copies begin no earlier than the ones holding them, so the
// containing range that begins last is the innermost.
class InlinedIndex {
 public:
  explicit InlinedIndex(const symbolizer::ElfFile& elf) {
    for (const auto& copy : elf.inlined())
      for (const auto& r : copy.ranges) ranges_.push_back({r.begin, r.end, &copy});
    std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;  // the outer first when both begin there
    });
  }
  const symbolizer::InlinedCopy* innermost(uint64_t vaddr) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), vaddr,
                               [](uint64_t v, const Range& r) { return v < r.begin; });
    while (it != ranges_.begin()) {
      --it;
      if (vaddr < it->end) return it->copy;
    }
    return nullptr;
  }

 private:
  struct Range {
    uint64_t begin, end;
    const symbolizer::InlinedCopy* copy;
  };
  std::vector<Range> ranges_;
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
      const uint64_t vaddr = file_offset - seg.offset + seg.vaddr;
      if (s) return Where{{m->path, s->value}, s, elf, vaddr};
    }
    return Where{{m->path, 0}, nullptr, elf, 0};
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

// A function inlined where a sample fell: its key (module, and its name after a marker that no
// link-time address has) and its row.
struct Inlined {
  Key key;
  result::SurveyFunction row;
};

class InlinedResolver {
 public:
  std::optional<Inlined> at(const Where& w) {
    if (!w.elf || !w.symbol) return std::nullopt;
    auto& index = indexes_[w.elf->path()];
    if (!index) index = std::make_unique<InlinedIndex>(*w.elf);
    const symbolizer::InlinedCopy* copy = index->innermost(w.vaddr);
    if (!copy) return std::nullopt;
    Inlined out;
    out.key = {w.key.first + "\n" + copy->origin.name, 0};
    out.row.name = copy->origin.short_name.empty() ? copy->origin.name : copy->origin.short_name;
    out.row.symbol = copy->origin.name;
    out.row.module = w.key.first;
    if (!copy->ranges.empty()) out.row.source = w.elf->source_of(copy->ranges.front().begin);
    out.row.probe = "inlined";
    return out;
  }

 private:
  std::map<std::string, std::unique_ptr<InlinedIndex>> indexes_;
};

result::SurveyFunction describe(const Where& w) {
  result::SurveyFunction f;
  f.module = w.key.first;
  f.probe = "none";
  if (!w.symbol) {
    f.name = f.module.empty() ? "[kernel]" : "[unknown in " + std::string(path_basename(f.module)) + "]";
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
  InlinedResolver inlined;
  for (const Sample& s : samples.samples) {
    auto leaf = resolve.at(s.pid, s.ip);
    if (!leaf) leaf = Where{{"", 1}, nullptr, nullptr};  // code in no file: JIT, vdso
    std::set<Key> seen{leaf->key};
    result::SurveyFunction& holder = count(*leaf);
    if (leaf->key == Key{"", 1}) holder.name = "[anonymous code]";
    ++holder.total_samples;
    // In an inlined copy (DWARF): the sample is that function's own time, its holder's total.
    if (auto in = inlined.at(*leaf)) {
      auto it = functions.try_emplace(in->key, std::move(in->row)).first;
      ++it->second.self_samples;
      ++it->second.total_samples;
    } else {
      ++holder.self_samples;
    }
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
