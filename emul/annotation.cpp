#include "emul/annotation.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace roofprof::emul {
namespace {

struct Columns {
  std::vector<std::string> per_execution, in_all;  // the tool's counters before and after "|"
};

// "<module>\t<hex address> <length> <executions> <partial> <count per execution...> | <in all...>"
bool parse_line(const std::string& line, const Columns& names, InstructionCounts& out) {
  const size_t tab = line.rfind('\t');
  if (tab == std::string::npos) return false;
  out.module = line.substr(0, tab);
  std::istringstream in(line.substr(tab + 1));
  int partial = 0;
  in >> std::hex >> out.address >> std::dec >> out.length >> out.executions >> partial;
  if (!in) return false;
  out.partial = partial != 0;
  out.totals.clear();
  for (const auto& name : names.per_execution) {
    uint64_t per = 0;
    if (!(in >> per)) return false;
    if (per) out.totals[name] = double(per) * double(out.executions);
  }
  std::string bar;
  if (!(in >> bar) || bar != "|") return false;
  for (const auto& name : names.in_all) {
    uint64_t all = 0;
    if (!(in >> all)) return false;
    out.totals[name] = double(all);  // 0 too: simulated and none
  }
  return true;
}

}  // namespace

std::vector<InstructionCounts> read_annotation(const std::string& dir) {
  std::map<std::pair<std::string, uint64_t>, InstructionCounts> all;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".annot") continue;
    std::ifstream in(e.path());
    std::string line;
    if (!std::getline(in, line) || line.rfind("counters ", 0) != 0) continue;
    Columns names;
    std::istringstream header(line.substr(9));
    bool after_bar = false;
    for (std::string n; header >> n;) {
      if (n == "|") after_bar = true;
      else (after_bar ? names.in_all : names.per_execution).push_back(n);
    }
    InstructionCounts c;
    while (std::getline(in, line)) {
      if (!parse_line(line, names, c)) continue;
      auto [it, fresh] = all.try_emplace({c.module, c.address}, c);
      if (fresh) continue;
      it->second.executions += c.executions;
      it->second.partial = it->second.partial || c.partial;
      for (const auto& [n, v] : c.totals) it->second.totals[n] += v;
    }
  }
  std::vector<InstructionCounts> out;
  for (auto& [key, c] : all) out.push_back(std::move(c));
  return out;
}

}  // namespace roofprof::emul
