#include "cli/emul_merge.hpp"

#include <fmt/format.h>

#include "regions/aggregate.hpp"

namespace roofprof::cli {

namespace {

emul::ProbeKind probe_kind(probes::SiteRole role) {
  switch (role) {
    case probes::SiteRole::Entry: return emul::ProbeKind::Entry;
    case probes::SiteRole::SpanStart: return emul::ProbeKind::SpanStart;
    case probes::SiteRole::SpanStop: return emul::ProbeKind::SpanStop;
  }
  return emul::ProbeKind::Entry;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

std::vector<emul::Probe> emulation_probes(const probes::Planner& planner) {
  std::vector<emul::Probe> out;
  for (const auto& info : planner.regions())
    for (const auto& site : info.sites) {
      emul::Probe p{site.region, probe_kind(site.role), site.module, site.address};
      bool dup = false;
      for (const auto& q : out) dup |= q.region == p.region && q.kind == p.kind && q.module == p.module && q.address == p.address;
      if (!dup) out.push_back(p);
    }
  return out;
}

std::vector<std::string> merge_emulated(std::vector<result::Region>& regions, const emul::Result& emulated,
                                        bool cache_sim) {
  regions::Aggregator agg;
  for (const auto& inst : emulated.instances) agg.add(inst);
  std::vector<std::string> warnings;
  const auto& names = emulated.counters;
  for (size_t id = 0; id < regions.size(); ++id) {
    result::Region& r = regions[id];
    auto it = agg.regions().find(regions::RegionId(id));
    uint64_t emul_calls = it == agg.regions().end() ? 0 : it->second.calls;
    if (emul_calls != r.calls)
      warnings.push_back(fmt::format("region '{}': {} calls in the native run, {} under emulation; W and Q are "
                                     "totals of the emulated run",
                                     r.name, r.calls, emul_calls));
    std::vector<double> totals(names.size(), 0.0);
    if (it != agg.regions().end())
      for (size_t i = 0; i < names.size() && i < it->second.counter_totals.size(); ++i)
        totals[i] = it->second.counter_totals[i];
    double flops = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string& n = names[i];
      double v = totals[i];
      if (n == "instructions") {
        r.instructions = v;
      } else if (starts_with(n, "flops_")) {
        r.flops_by_class[n.substr(6)] = v;
        flops += v;
      } else if (starts_with(n, "bytes_read_")) {
        r.bytes[n.substr(11)].read = v;
      } else if (starts_with(n, "bytes_written_")) {
        r.bytes[n.substr(14)].write = v;
      }
    }
    r.flops = flops;
    r.sources["flops"] = "emul";
    r.sources["instructions"] = "emul";
    r.sources["bytes"] = "emul";  // L1: exact; beyond L1 (cache simulation) overridden per level
    if (cache_sim)
      for (const char* level : {"L2", "L3", "DRAM"})
        if (r.bytes[level].read) r.sources[std::string("bytes.") + level] = "emul (cache simulation)";
  }
  return warnings;
}

}  // namespace roofprof::cli
