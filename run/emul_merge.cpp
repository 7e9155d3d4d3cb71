#include "run/emul_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <tuple>

#include "run/assemble.hpp"
#include "run/instances.hpp"
#include "common/error.hpp"
#include "result/balance.hpp"
#include "regions/aggregate.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::run {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

EmulatedQuantities emulated_quantities(const std::vector<std::string>& names, const std::vector<double>& counts) {
  EmulatedQuantities q;
  for (size_t i = 0; i < names.size() && i < counts.size(); ++i) {
    const std::string& n = names[i];
    double v = counts[i];
    if (n == "instructions") {
      q.instructions = v;
    } else if (starts_with(n, "flops_")) {
      q.flops_by_class[n.substr(6)] = v;
      q.flops += v;
    } else if (starts_with(n, "bytes_read_")) {
      q.bytes[n.substr(11)].read = v;
    } else if (starts_with(n, "bytes_written_")) {
      q.bytes[n.substr(14)].write = v;
    }
  }
  return q;
}

std::vector<probes::PlannedProbe> emulation_probes(const probes::Planner& planner) {
  std::vector<probes::PlannedProbe> out;
  for (const auto& info : planner.regions())
    for (const auto& site : info.sites) {
      if (site.ifunc) continue;  // its resolver, not the function (emulation_left_out)
      bool dup = false;
      for (const auto& q : out)
        dup |= q.region == site.region && q.role == site.role && q.module == site.module && q.address == site.address;
      if (!dup) out.push_back(site);
    }
  return out;
}

std::vector<std::string> emulation_left_out(const probes::Planner& planner) {
  std::set<std::string> out;
  for (const auto& info : planner.regions())
    for (const auto& site : info.sites)
      if (site.ifunc) out.insert(fmt::format("region '{}': {}", info.name, probes::ifunc_note(site, "the emulator")));
  return {out.begin(), out.end()};
}

std::vector<result::SimulatedCache> simulated_caches(const emul::Result& emulated) {
  std::vector<result::SimulatedCache> out;
  for (size_t i = 0; i < emulated.simulated_caches.size(); ++i) {
    const CacheInfo& c = emulated.simulated_caches[i];
    out.push_back({fmt::format("L{}", i + 1), c.size, c.ways, c.line, c.inclusive});
  }
  return out;
}

void record_simulated_caches(const emul::Result& emulated, const std::string& source, bool last_level_measured,
                             result::Run& run) {
  run.simulated_caches = simulated_caches(emulated);
  if (run.simulated_caches.empty()) return;
  run.simulated_caches_source = source;
  if (source == "reported" && !last_level_measured)
    if (auto w = emul::implausible_last_level(emulated.simulated_caches)) run.warnings.push_back(std::move(*w));
}

namespace {

// Each thread's W from the emulated run, matched to the native run's threads by number
// (regions::ThreadNumber); a thread the native run did not see gets no time.
void merge_thread_parts(result::Region& r, const regions::Aggregate& a, const std::vector<std::string>& names) {
  std::vector<result::ThreadPart> native = std::move(r.per_thread);
  set_thread_parts(r, a, [&](const std::vector<double>& v) { return std::optional(emulated_quantities(names, v).flops); },
                   false);
  for (result::ThreadPart& p : r.per_thread)
    for (const result::ThreadPart& n : native)
      if (n.process == p.process && n.thread == p.thread) p.time_s = r.time_s ? n.time_s : std::nullopt;
  r.balance = result::balance_of(r.per_thread);
}

// An instance's exact W and Q from the emulated run's deltas (its own thread's, and the others'
// for the anchor of scope=process).
void emulated_instance_quantities(const std::vector<std::string>& names, const regions::KeptInstance& x,
                                  result::Instance& into) {
  if (!x.own_unknown) {
    std::vector<double> own = x.counts;
    for (size_t i = 0; i < own.size() && i < x.others.size(); ++i) own[i] -= x.others[i];
    EmulatedQuantities q = emulated_quantities(names, own);
    into.flops = q.flops;
    into.bytes = std::move(q.bytes);
  }
  if (!x.others.empty()) into.flops_other_threads = emulated_quantities(names, x.others).flops;
}

}  // namespace

std::optional<std::string> emulated_pass_cut_short(const emul::Result& emulated, std::optional<int> native_exit,
                                                   std::optional<int> native_signal) {
  auto signal_text = [](int sig) { return std::string("SIG") + (sigabbrev_np(sig) ? sigabbrev_np(sig) : std::to_string(sig)); };
  const std::string native = native_signal ? "was killed by " + signal_text(*native_signal)
                                           : fmt::format("exited with {}", native_exit.value_or(0));
  std::string how;
  if (emulated.signal && emulated.signal != native_signal.value_or(0))
    how = "was killed by " + signal_text(emulated.signal);
  else if (!emulated.signal && !native_signal && emulated.exit_code != native_exit.value_or(0))
    how = fmt::format("exited with {}", emulated.exit_code);
  else if (!emulated.signal && native_signal)
    how = fmt::format("exited with {}", emulated.exit_code);
  if (how.empty()) return std::nullopt;
  return fmt::format("the emulated run ended early: the program {} under valgrind where it {} natively{}", how,
                     native, emulated.log_error.empty() ? "" : " (" + emulated.log_error + ")");
}

std::vector<std::string> unmeasured_region_warnings(const std::vector<result::Region>& regions, bool traffic_only,
                                                    const std::string& why) {
  std::vector<std::string> out;
  for (const auto& r : regions)
    if (r.calls > 0)
      out.push_back(fmt::format("region '{}': {} not measured (null): {}", r.name,
                                traffic_only ? "bytes (Q) below L1" : "flops and bytes (W and Q)", why));
  return out;
}

std::vector<std::string> merge_emulated(std::vector<result::Region>& regions, const emul::Result& emulated,
                                        bool cache_sim, bool traffic_only) {
  const regions::Aggregator& agg = emulated.aggregate;
  std::vector<std::string> warnings;
  const auto& names = emulated.counters;
  for (size_t id = 0; id < regions.size(); ++id) {
    result::Region& r = regions[id];
    auto it = agg.regions().find(regions::RegionId(id));
    uint64_t emul_calls = it == agg.regions().end() ? 0 : it->second.calls;
    if (emul_calls == 0 && r.calls > 0) {
      // The emulated run never reached the region (it failed, or took another path): its
      // zero was not measured. W and Q stay unknown.
      warnings.push_back(fmt::format("region '{}': {} calls in the native run, none under emulation; W and Q "
                                     "unknown (null)",
                                     r.name, r.calls));
      continue;
    }
    if (emul_calls != r.calls)
      warnings.push_back(fmt::format("region '{}': {} calls in the native run, {} under emulation; W and Q are "
                                     "totals of the emulated run",
                                     r.name, r.calls, emul_calls));
    std::vector<double> totals(names.size(), 0.0);
    if (it != agg.regions().end())
      for (size_t i = 0; i < names.size() && i < it->second.counter_totals.size(); ++i)
        totals[i] = it->second.counter_totals[i];
    auto q = emulated_quantities(names, totals);
    if (traffic_only) {
      // W is native counting's, of the code that ran natively; the emulated run may have taken
      // other code (a library dispatching on the CPU the emulator reports), and then its bytes
      // describe that code.
      if (r.flops && *r.flops != q.flops)
        warnings.push_back(fmt::format("region '{}': the emulated run did {:.6g} flops where the native run did {:.6g} "
                                       "(the program or a library took other code under emulation): its bytes "
                                       "describe that code",
                                       r.name, q.flops, *r.flops));
    } else {
      if (it != agg.regions().end()) merge_thread_parts(r, it->second, names);
      r.flops = q.flops;
      r.flops_by_class = std::move(q.flops_by_class);
      r.sources["flops"] = "emul";
    }
    r.instructions = q.instructions;
    for (auto& [level, b] : q.bytes) r.bytes[level] = b;
    r.sources["instructions"] = "emul";
    r.sources["bytes"] = "emul";  // L1: exact; beyond L1 (cache simulation) overridden per level
    if (cache_sim)
      for (const char* level : {"L2", "L3", "DRAM"})
        if (r.bytes[level].read) r.sources[std::string("bytes.") + level] = "emul (cache simulation)";
    // Each instance's W and Q: the emulated run's instance at its place (run/instances.hpp).
    auto per_instance = [&names, traffic_only](const regions::KeptInstance& x, result::Instance& into) {
      const std::optional<double> native_w = into.flops, native_others = into.flops_other_threads;
      emulated_instance_quantities(names, x, into);
      if (traffic_only) into.flops = native_w, into.flops_other_threads = native_others;  // W stays native counting's
    };
    if (!r.instances.empty() && it != agg.regions().end() && !match_emulated_instances(r, it->second, per_instance))
      warnings.push_back(fmt::format("region '{}': its instances differ between the native and the emulated run "
                                     "(threads or calls per thread): W and Q per instance unknown (null)",
                                     r.name));
  }
  return warnings;
}

namespace {

std::string canonical_or_same(const std::string& path) {
  std::error_code ec;
  auto c = std::filesystem::canonical(path, ec);
  return ec ? path : c.string();
}

result::AnnotatedInstruction annotated(const std::string& module, const emul::InstructionCounts& c) {
  result::AnnotatedInstruction a;
  a.module = module;
  a.address = c.address;
  a.length = c.length;
  a.executions = c.executions;
  a.partial = c.partial;
  for (const auto& [name, v] : c.totals) {
    if (name.rfind("flops_", 0) == 0) {
      a.flops += v;
      a.flops_by_class[name.substr(6)] = v;
    } else if (name == "bytes_read_L1") {
      a.bytes_read = v;
    } else if (name == "bytes_written_L1") {
      a.bytes_written = v;
    } else if (name.rfind("bytes_read_", 0) == 0) {
      a.traffic[name.substr(11)].read = v;
    } else if (name.rfind("bytes_written_", 0) == 0) {
      a.traffic[name.substr(14)].write = v;
    }
  }
  return a;
}

}  // namespace

void attach_annotation(std::vector<result::Region>& regions, const std::vector<emul::InstructionCounts>& counts) {
  std::map<std::string, std::vector<const emul::InstructionCounts*>> by_module;
  for (const auto& c : counts) by_module[canonical_or_same(c.module)].push_back(&c);
  for (auto& region : regions) {
    if (region.kind != "function") continue;
    std::set<std::pair<std::string, uint64_t>> functions;  // (module, first byte): each once
    for (const auto& site : region.locations) {
      const std::string module = canonical_or_same(site.module);
      auto it = by_module.find(module);
      if (it == by_module.end()) continue;
      std::shared_ptr<symbolizer::ElfFile> elf;
      try {
        elf = symbolizer::ElfFile::open(module);
      } catch (const UserError&) {
        continue;
      }
      const symbolizer::Symbol* fn = elf->function_at(site.offset);
      if (!fn || !functions.insert({module, fn->value}).second) continue;
      for (const auto* c : it->second)
        if (c->address >= fn->value && c->address < fn->value + std::max<uint64_t>(fn->size, 1))
          region.annotation.push_back(annotated(module, *c));
    }
    std::sort(region.annotation.begin(), region.annotation.end(),
              [](const auto& a, const auto& b) {
                return std::tie(a.module, a.address) < std::tie(b.module, b.address);
              });
  }
}

}  // namespace roofprof::run
