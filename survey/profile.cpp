#include "survey/profile.hpp"

#include <fmt/format.h>

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

std::vector<std::string> stripped_module_notes(const result::Survey& survey, symbolizer::ElfCache& cache) {
  std::vector<std::string> out;
  for (const auto& f : survey.functions) {
    if (!f.symbol.empty() || f.module.empty() || f.name.rfind("[unknown in ", 0) != 0) continue;
    auto elf = cache.get(f.module);
    auto note = elf ? elf->stripped_note() : std::nullopt;
    if (!note) continue;
    const double share = survey.samples ? 100.0 * double(f.self_samples) / double(survey.samples) : 0;
    out.push_back(fmt::format("{} {:.1f} % of the samples: {}", f.name, share, *note));
  }
  return out;
}

namespace {

// The function's first bytes in its file: [endbr64] push %rbp; mov %rsp,%rbp: it keeps a frame
// pointer, so the kernel's walk of the chain finds its caller. nullopt when unreadable.
std::optional<bool> keeps_frame_pointer(const symbolizer::ElfFile& elf, const symbolizer::Symbol& symbol) {
  for (const auto& seg : elf.segments()) {
    if (!seg.exec || symbol.value < seg.vaddr || symbol.value + 8 > seg.vaddr + seg.filesz) continue;
    uint8_t code[8];
    std::ifstream in(elf.path(), std::ios::binary);
    in.seekg(std::streamoff(symbol.value - seg.vaddr + seg.offset));
    if (!in.read(reinterpret_cast<char*>(code), sizeof code)) return std::nullopt;
    const uint8_t* p = code;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) p += 4;  // endbr64
    return p[0] == 0x55 && p[1] == 0x48 && p[2] == 0x89 && p[3] == 0xe5;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> frame_pointer_note(const Samples& samples, symbolizer::ElfCache& cache) {
  Resolver resolve(samples.mappings, cache);
  std::map<Key, std::optional<bool>> keeps;
  std::map<std::string, uint64_t> without;  // samples per function without a frame pointer
  uint64_t count = 0;
  for (const Sample& s : samples.samples) {
    if (s.unwound) continue;  // its callers came from CFI, not from frame pointers
    auto leaf = resolve.at(s.pid, s.ip);
    if (!leaf || !leaf->symbol) continue;
    auto it = keeps.find(leaf->key);
    if (it == keeps.end()) it = keeps.emplace(leaf->key, keeps_frame_pointer(*leaf->elf, *leaf->symbol)).first;
    if (it->second != false) continue;
    ++count;
    ++without[leaf->symbol->demangled];
  }
  if (count == 0) return std::nullopt;
  std::vector<std::pair<uint64_t, std::string>> top;
  for (auto& [name, n] : without) top.emplace_back(n, name);
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<std::string> names;
  for (size_t i = 0; i < top.size() && i < 3; ++i) names.push_back(top[i].second);
  return fmt::format("total is not inclusive where code keeps no frame pointer: {} of {} samples ({:.1f} %) fell in "
                     "functions built without one (gcc's default from -O1; most in {}) and {}, and the kernel's "
                     "frame-pointer walk of their call chains skips their callers (build with "
                     "-fno-omit-frame-pointer{} for inclusive totals)",
                     count, samples.samples.size(), 100.0 * double(count) / double(samples.samples.size()),
                     fmt::join(names, ", "),
                     samples.stacks_copied
                         ? fmt::format("could not be unwound with DWARF CFI (no .eh_frame entry, or a stack deeper "
                                       "than the {} KiB each sample copies)", kStackCopyBytes / 1024)
                         : "were not unwound with DWARF CFI (--unwind fp)",
                     samples.stacks_copied ? ", or keep unwind tables" : "; or leave out --unwind fp");
}

namespace {

// Whether a sample's chain of callers goes on at `caller`: not in code of no file (the chain went
// astray); without a symbol only when CFI unwound the sample (a stripped module's internal function,
// whose callers are real), since a frame-pointer chain there has gone astray.
bool chain_goes_on(const std::optional<Where>& caller, const Sample& s) {
  return caller && (caller->symbol || s.unwound);
}

}  // namespace

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
      if (!chain_goes_on(caller, s)) break;
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

std::vector<std::string> unknown_entry_notes(const Samples& samples, symbolizer::ElfCache& cache) {
  Resolver resolve(samples.mappings, cache);
  // Per module with unknown code: its samples there, and per named caller the samples it was the
  // first named frame of.
  struct Unknown {
    uint64_t samples = 0;
    std::map<std::string, uint64_t> through;
  };
  std::map<std::string, Unknown> by_module;
  for (const Sample& s : samples.samples) {
    auto leaf = resolve.at(s.pid, s.ip);
    if (!leaf || leaf->symbol || leaf->key.first.empty()) continue;
    Unknown& u = by_module[leaf->key.first];
    ++u.samples;
    for (uint64_t ret : s.callers) {
      auto caller = resolve.at(s.pid, ret - 1);
      if (!chain_goes_on(caller, s)) break;
      if (!caller->symbol) continue;
      ++u.through[caller->symbol->demangled];
      break;
    }
  }
  std::vector<std::string> out;
  for (const auto& [module, u] : by_module) {
    std::vector<std::pair<uint64_t, std::string>> ranked;
    for (const auto& [name, n] : u.through) ranked.emplace_back(n, name);
    if (ranked.empty()) continue;
    std::sort(ranked.rbegin(), ranked.rend());
    std::string list;
    for (size_t i = 0; i < ranked.size() && i < 3; ++i)
      list += fmt::format("{}{} ({:.0f} %)", i ? ", " : "", ranked[i].second,
                          100.0 * double(ranked[i].first) / double(u.samples));
    out.push_back(fmt::format("[unknown in {}] was reached through {}: a region on that function measures it "
                              "(its samples there, by the first caller with a name)",
                              path_basename(module), list));
  }
  return out;
}

}  // namespace roofprof::survey
