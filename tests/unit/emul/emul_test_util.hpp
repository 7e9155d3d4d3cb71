#pragma once
// Shared helpers of the emulation backend's tests: fixture paths, symbol addresses, reading
// counters out of instances.
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "emul/emul.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::emul::test {

inline std::string fixture(const std::string& name) { return std::string(FIXTURES_DIR) + "/" + name; }

// Link-time address of the function `symbol` in the ELF file `path`.
inline uint64_t symbol_address(const std::string& path, const std::string& symbol) {
  auto elf = symbolizer::ElfFile::open(path);
  for (const auto& s : elf->functions())
    if (s.name == symbol) return s.value;
  throw std::runtime_error("no symbol " + symbol + " in " + path);
}

// An entry probe for each symbol (region id = position in `symbols`).
inline std::vector<probes::PlannedProbe> entry_probes(const std::string& path, const std::vector<std::string>& symbols) {
  std::vector<probes::PlannedProbe> probes;
  for (size_t i = 0; i < symbols.size(); ++i)
    probes.push_back(probes::PlannedProbe{regions::RegionId(i), probes::SiteRole::Entry, path, symbol_address(path, symbols[i]), "", false});
  return probes;
}

// Counter `name` of an instance; throws when the run has no such counter.
inline double value(const Result& r, const regions::Instance& inst, const std::string& name) {
  auto it = std::find(r.counters.begin(), r.counters.end(), name);
  if (it == r.counters.end()) throw std::runtime_error("no counter " + name);
  return inst.counts.at(size_t(it - r.counters.begin()));
}

// Sum of the SSE/AVX flop classes (flops_sp_* and flops_dp_*; not x87).
inline double flops(const Result& r, const regions::Instance& inst) {
  double sum = 0;
  for (const char* c : {"flops_sp_scalar", "flops_sp_128", "flops_sp_256", "flops_sp_512", "flops_dp_scalar",
                        "flops_dp_128", "flops_dp_256", "flops_dp_512"})
    sum += value(r, inst, c);
  return sum;
}

inline double flops_of(const Result& r, const regions::Instance& inst, const char* prec) {
  double sum = 0;
  for (const char* w : {"scalar", "128", "256", "512"}) sum += value(r, inst, std::string("flops_") + prec + "_" + w);
  return sum;
}

// Instances of one region, in closing order.
inline std::vector<regions::Instance> of_region(const Result& r, regions::RegionId id) {
  std::vector<regions::Instance> out;
  for (const auto& i : r.instances)
    if (i.region == id) out.push_back(i);
  return out;
}

}  // namespace roofprof::emul::test
