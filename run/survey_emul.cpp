#include "run/survey_emul.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "run/assemble.hpp"
#include "run/emul_merge.hpp"
#include "run/emulated_pass.hpp"
#include "common/error.hpp"
#include "common/program.hpp"
#include "emul/emul.hpp"
#include "regions/self_counts.hpp"
#include "survey/select.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::run {

namespace {

// More regions than this make the emulated run's probe table large for little: the functions
// after the first 500 (by samples) hold little of the time.
constexpr size_t kMaxEmulated = 500;

std::vector<std::string> emulated_symbols(const result::Survey& s) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& f : s.functions)
    if (survey::probeable(f) && f.probe != "agent" && out.size() < kMaxEmulated && seen.insert(f.symbol).second)
      out.push_back(f.symbol);
  return out;
}

std::vector<probes::PlannedProbe> plan_probes(probes::Planner& planner, const result::Survey& s,
                                              const std::string& executable) {
  symbolizer::ElfCache cache;
  std::set<std::string> modules;
  for (const auto& f : s.functions)
    if (!f.module.empty() && modules.insert(f.module).second)
      if (auto elf = cache.get(f.module)) planner.probes_for(*elf, f.module == executable);
  return emulation_probes(planner);
}

// The regions with an IFUNC site (left out of the emulated run: emulation_probes), by name.
std::string ifunc_regions(const probes::Planner& planner) {
  std::string out;
  for (const auto& info : planner.regions()) {
    bool ifunc = false;
    for (const auto& site : info.sites) ifunc |= site.ifunc;
    if (ifunc) out += (out.empty() ? "" : ", ") + info.name;
  }
  return out;
}

emul::Options emulation_options(const SurveyEmulation& how, const probes::Planner& planner,
                                regions::SelfCounts& self) {
  emul::Options eo;
  eo.scope = regions::Scope::Thread;  // a function's counts are its thread's, whatever others do
  eo.cache_sim = how.cache_sim;
  eo.cache = how.cache;
  eo.progress = progress_output(how.quiet);
  eo.region_name = [&planner](regions::RegionId id) { return planner.regions().at(id).name; };
  eo.keep_calls = [](regions::RegionId) { return false; };  // totals only
  eo.on_instance = [&self](const regions::Instance& inst) { self.add(inst); };
  return eo;
}

// Where a function's callees counted more than it did in one of its calls (the data disagree:
// a boundary the emulated run missed), its own counts were clamped at zero: said per function.
std::vector<std::string> clamped_self_notes(const probes::Planner& planner, const regions::SelfCounts& self) {
  std::vector<std::string> out;
  for (const auto& [region, calls] : self.clamped())
    out.push_back(fmt::format("self counts of {} clamped at 0 in {} of its calls: the surveyed functions it called "
                              "counted more than the call itself (their boundaries disagree); its self W and Q "
                              "are approximate",
                              planner.regions().at(region).name, calls));
  return out;
}

// The survey's functions -> their regions, their sampled time, their self quantities.
void attach_regions(const probes::Planner& planner, const emul::Result& emulated, const regions::SelfCounts& self,
                    result::Run& run) {
  std::map<std::string, regions::RegionId> by_symbol;
  for (size_t id = 0; id < planner.regions().size(); ++id) by_symbol[planner.regions()[id].spec] = id;
  result::Survey& s = *run.survey;
  for (auto& f : s.functions) {
    auto it = by_symbol.find(f.symbol);
    if (f.symbol.empty() || it == by_symbol.end()) continue;
    result::Region& r = run.regions.at(it->second);
    if (r.calls == 0) continue;  // not reached under emulation: nothing measured
    f.region = it->second;
    r.time_s = double(f.total_samples) * s.period_s;
    auto own = self.totals().find(it->second);
    if (own == self.totals().end()) continue;
    auto q = emulated_quantities(emulated.counters, own->second);
    f.self_flops = q.flops;
    f.self_instructions = q.instructions;
    f.self_bytes = q.bytes;
  }
  for (auto& note : clamped_self_notes(planner, self)) run.warnings.push_back(std::move(note));
}

}  // namespace

PassOutcome emulate_survey(const std::vector<std::string>& argv, const SurveyEmulation& how, result::Run& run) {
  std::vector<regions::RegionSpec> specs;
  for (const auto& name : emulated_symbols(*run.survey)) {
    try {
      specs.push_back(regions::parse_region(name));
    } catch (const UserError&) {
      run.warnings.push_back("function '" + name + "': its name is no region spec; not emulated");
    }
  }
  if (specs.empty()) {
    run.warnings.push_back("no sampled function can be a region: nothing emulated");
    return {};
  }
  probes::Planner planner(specs);
  std::error_code ec;
  const auto exe = std::filesystem::canonical(runnable_program(argv.at(0)), ec).string();
  auto probes = plan_probes(planner, *run.survey, exe);
  if (auto ifuncs = ifunc_regions(planner); !ifuncs.empty())
    run.warnings.push_back("IFUNC definitions left out of the emulated run (the emulator would time only their "
                           "resolvers; `roofprof run` measures them in-process): " + ifuncs);
  regions::SelfCounts self;
  emul::Options eo = emulation_options(how, planner, self);
  auto emulate = [&]() {
    if (!how.quiet)
      std::fprintf(stderr, "roofprof: emulated run for the exact flops and bytes of %zu functions\n",
                   planner.regions().size());
    return emul::run(argv, probes, eo);
  };
  // The functions' regions are the emulated run's (the survey sampled, it timed no call); a
  // function's counts are its own thread's. An unmeasured pass is said once, not per function.
  PassPolicy policy;
  policy.untimed_calls_source = "emulated run";
  policy.cache_sim = how.cache_sim;
  policy.warn_each_region = false;
  PassOutcome pass = emulated_pass(policy, planner, emulate, run);
  // time: set from the samples for the functions the survey keeps
  for (auto& r : run.regions) r.sources["time"] = "samples (approximate)";
  if (pass.emulated) {
    record_simulated_caches(*pass.emulated, how.cache.empty() ? "reported" : "option", false, run);
    attach_regions(planner, *pass.emulated, self, run);
  }
  return pass;
}

}  // namespace roofprof::run
