#include "symbolizer/line_table.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/strings.hpp"
#include "symbolizer/dwarf_units.hpp"

namespace roofprof::symbolizer {

std::vector<std::string> path_components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    if (part == "..") {
      // The parent of what came before; kept where nothing before can be left (a relative path's
      // start), dropped at the root ("/.." is "/").
      if (!out.empty() && out.back() != "..") {
        out.pop_back();
      } else if (!path.starts_with('/')) {
        out.emplace_back(part);
      }
    } else if (!part.empty() && part != ".") {
      out.emplace_back(part);
    }
    i = j + 1;
  }
  return out;
}

namespace {

bool ends_with_components(const std::vector<std::string>& path, const std::vector<std::string>& tail) {
  if (tail.size() > path.size()) return false;
  return std::equal(tail.rbegin(), tail.rend(), path.rbegin());
}

}  // namespace

// Walks the rows of each compilation unit in address order, cutting them into ranges (for
// source_of) and runs of one file:line (for addresses).
class LineTable::Builder {
 public:
  Builder(LineTable& table, const std::vector<AddressRange>& code) : t_(table), code_(code) {}

  // `comp_dir`: the unit's DW_AT_comp_dir ("" none), where its relative file names start.
  void add_unit(Dwarf_Lines* lines, size_t count, std::string comp_dir) {
    by_pointer_.clear();
    comp_dir_ = std::move(comp_dir);
    reset();
    for (size_t i = 0; i < count; ++i) {
      Dwarf_Line* l = dwarf_onesrcline(lines, i);
      if (l) add_row(l);
    }
  }

  void finish() {
    std::sort(t_.ranges_.begin(), t_.ranges_.end(),
              [](const Range& a, const Range& b) { return a.begin < b.begin; });
    for (auto& f : t_.files_) {
      for (auto& [line, addrs] : f.runs) {
        std::sort(addrs.begin(), addrs.end());
        addrs.erase(std::unique(addrs.begin(), addrs.end()), addrs.end());
      }
    }
  }

 private:
  void reset() {
    have_prev_ = false;
    have_run_ = false;
  }

  bool in_code(uint64_t addr, bool end_sequence) const {
    for (const auto& r : code_) {
      if (end_sequence ? (addr > r.begin && addr <= r.end) : (addr >= r.begin && addr < r.end)) return true;
    }
    return false;
  }

  uint32_t intern(const char* src) {
    auto hit = by_pointer_.find(src);
    if (hit != by_pointer_.end()) return hit->second;
    std::string path = src ? src : "";
    if (!path.empty() && path[0] != '/' && !comp_dir_.empty()) path = comp_dir_ + "/" + path;
    auto [it, inserted] = by_path_.try_emplace(path, uint32_t(t_.files_.size()));
    if (inserted) t_.files_.push_back(FileLines{path, path_components(path), {}});
    by_pointer_[src] = it->second;
    return it->second;
  }

  void add_row(Dwarf_Line* l) {
    Dwarf_Addr addr = 0;
    int lineno = 0;
    bool stmt = false, end_seq = false;
    if (dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &lineno) != 0 ||
        dwarf_linebeginstatement(l, &stmt) != 0 || dwarf_lineendsequence(l, &end_seq) != 0) {
      reset();
      return;
    }
    if (!in_code(addr, end_seq) || (have_prev_ && addr < prev_addr_)) {
      reset();
      return;
    }
    if (have_prev_ && addr > prev_addr_ && prev_line_ != 0) {
      t_.ranges_.push_back(Range{prev_addr_, addr, prev_file_, prev_line_});
    }
    if (end_seq) {
      reset();
      return;
    }
    uint32_t file = intern(dwarf_linesrc(l, nullptr, nullptr));
    uint32_t line = uint32_t(std::max(lineno, 0));
    if (!have_run_ || run_file_ != file || run_line_ != line) {
      have_run_ = true;
      run_file_ = file;
      run_line_ = line;
      run_recorded_ = false;
    }
    if (stmt && !run_recorded_ && line != 0) {
      t_.files_[file].runs[line].push_back(addr);
      run_recorded_ = true;
    }
    have_prev_ = true;
    prev_addr_ = addr;
    prev_file_ = file;
    prev_line_ = line;
  }

  LineTable& t_;
  const std::vector<AddressRange>& code_;
  std::unordered_map<const char*, uint32_t> by_pointer_;  // per unit
  std::string comp_dir_;                                  // per unit
  std::unordered_map<std::string, uint32_t> by_path_;
  bool have_prev_ = false, have_run_ = false, run_recorded_ = false;
  uint64_t prev_addr_ = 0;
  uint32_t prev_file_ = 0, prev_line_ = 0, run_file_ = 0, run_line_ = 0;
};

LineTable LineTable::read(Elf* elf, const std::vector<AddressRange>& code) {
  LineTable table;
  Builder builder(table, code);
  for_each_code_unit(elf, [&](Dwarf_Die& unit) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    Dwarf_Attribute attr;
    const char* comp_dir = dwarf_formstring(dwarf_attr(&unit, DW_AT_comp_dir, &attr));
    if (dwarf_getsrclines(&unit, &lines, &count) == 0) builder.add_unit(lines, count, comp_dir ? comp_dir : "");
  });
  builder.finish();
  return table;
}

std::vector<uint64_t> LineTable::addresses(std::string_view file, unsigned line,
                                           unsigned* used_line) const {
  std::vector<std::string> tail = path_components(file);
  std::vector<const FileLines*> matching;
  unsigned best = 0;
  if (!tail.empty()) {
    for (const auto& f : files_) {
      if (!ends_with_components(f.components, tail)) continue;
      auto it = f.runs.lower_bound(line);
      if (it == f.runs.end()) continue;
      if (matching.empty() || it->first < best) {
        matching.clear();
        best = it->first;
      }
      if (it->first == best) matching.push_back(&f);
    }
  }
  std::vector<uint64_t> out;
  for (const FileLines* f : matching) {
    const auto& addrs = f->runs.at(best);
    out.insert(out.end(), addrs.begin(), addrs.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (used_line) *used_line = out.empty() ? 0 : best;
  return out;
}

std::optional<std::string> LineTable::source_of(uint64_t addr) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), addr,
                             [](uint64_t a, const Range& r) { return a < r.begin; });
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  if (addr >= it->end) return std::nullopt;
  return std::string(path_basename(files_[it->file].path)) + ":" + std::to_string(it->line);
}

}  // namespace roofprof::symbolizer
