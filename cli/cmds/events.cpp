// roofprof events [--pmu MODEL] [--list]: the event set roofprof would use on this machine
// (or on a named PMU model), with groups, encodings, weights and formulas.
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "common/error.hpp"
#include "common/cpu_info.hpp"
#include "counters/event_catalog.hpp"
#include "counters/event_encoding.hpp"
#include "counters/event_set_selection.hpp"
#include "counters/group_plan.hpp"
#include "counters/run_backend.hpp"
#include "counters/w_placement.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::cli {
namespace {

using namespace roofprof::counters;

struct EventsOptions {
  std::string pmu;
  bool list = false;
};

std::string type_name(const EncodedEvent& e) {
  if (!e.line.perf_pmu.empty()) return e.line.perf_pmu;
  return e.type == PERF_TYPE_RAW ? "raw" : fmt::format("type {}", e.type);
}

std::string event_text(const EncodedEvent& e) {
  std::string s = e.qualified.empty() ? e.line.encoding : e.qualified;
  if (e.line.fixed) s += " (fixed counter)";
  if (e.line.cost == 2) s += " (+ merge counter)";
  return s;
}

void print_list() {
  std::printf("Event sets (counters/events/*.txt, embedded at build time):\n");
  for (const EventSet& s : event_catalog()) {
    std::string pfm;
    for (const std::string& p : s.pfm_pmus) pfm += (pfm.empty() ? "" : " ") + p;
    std::printf("  %-5s %s%s\n", s.model.c_str(), s.title.c_str(),
                pfm.empty() ? "" : fmt::format("  [libpfm4: {}]", pfm).c_str());
  }
}

void print_thread_events(const EventSet& set, const std::vector<EncodedEvent>& thread) {
  std::printf("\nPer-thread events (user level), in the groups roofprof opens:\n");
  std::printf("  %-5s %-18s %-62s %-9s %s\n", "group", "id", "event", "pmu", "config");
  const auto groups = plan_groups(thread, set.counters);
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t i : groups[g].members) {
      const EncodedEvent& e = thread[i];
      std::printf("  %-5zu %-18s %-62s %-9s %#llx\n", g + 1, e.line.id.c_str(),
                  event_text(e).c_str(), type_name(e).c_str(),
                  static_cast<unsigned long long>(e.config));
    }
  size_t per_pmu_max = 0;
  for (const CounterLimit& c : set.counters) {
    size_t n = 0;
    for (const PlannedGroup& g : groups) n += g.perf_pmu == c.perf_pmu;
    per_pmu_max = std::max(per_pmu_max, n);
  }
  if (per_pmu_max > 1)
    std::printf("  More than one group per PMU: the kernel multiplexes them; values are scaled "
                "(value * enabled / running) and flagged as estimates.\n");
  // What a run gets with the NMI watchdog on (most distributions' default), from the run's own plan.
  const std::vector<CounterLimit> limits = usable_counters(set, true);
  const WPlacement w = w_placement(set, thread, plan_groups(thread, limits), limits);
  if (w.has_w)
    std::printf("  W with the NMI watchdog on: %s: %s.\n", w.exact ? "exact" : "estimate", w.why.c_str());
}

void print_uncore_events(const std::vector<EncodedEvent>& uncore) {
  if (uncore.empty()) return;
  std::printf("\nSystem-wide events (one per box and socket; include other processes' traffic;\n"
              "need perf_event_paranoid <= 0 or CAP_PERFMON; lines for absent PMUs are skipped):\n");
  std::printf("  %-18s %-50s %-16s %s\n", "id", "event", "pmu", "config");
  for (const EncodedEvent& e : uncore)
    std::printf("  %-18s %-50s %-16s %#llx\n", e.line.id.c_str(), event_text(e).c_str(),
                e.line.perf_pmu.c_str(), static_cast<unsigned long long>(e.config));
}

void print_formulas(const EventSet& set) {
  std::printf("\nFormulas:\n");
  if (set.fp_missing) std::printf("  W         not measured: %s\n", set.fp_missing->c_str());
  for (const Formula& f : set.formulas) {
    const char* what = f.name == "W" ? "flops"
                       : f.approximate ? (f.name.rfind("Q.L3.", 0) == 0
                                              ? "bytes between L2 and L3, per-core approximation (what runs report)"
                                              : "bytes from DRAM, per-core approximation (what runs report)")
                                       : "bytes at the memory controller (system-wide; runs do not open uncore counters yet)";
    std::printf("  %-9s %s %s\n      (%s)\n", f.name.c_str(), f.approximate ? "~=" : "= ",
                to_string(f).c_str(), what);
  }
  if (!set.notes.empty()) {
    std::printf("\nNotes:\n");
    for (const std::string& n : set.notes) std::printf("  - %s\n", n.c_str());
  }
}

int run(const EventsOptions& o) {
  if (o.list) {
    print_list();
    return 0;
  }
  PfmLibrary pfm(true);
  EventSetSelection sel;
  if (!o.pmu.empty()) {
    sel.set = find_event_set(o.pmu);
    if (!sel.set)
      throw UserError("unknown PMU model '" + o.pmu + "' (known: " + catalog_models() +
                      ", or a libpfm4 name such as clx or amd64_fam19h_zen3; see --list)");
    sel.how = "--pmu " + o.pmu;
    const bool is_pfm_name = o.pmu != sel.set->model;
    sel.core_pmu = is_pfm_name ? o.pmu : qualifying_pmu(*sel.set, {});
  } else {
    sel = select_event_set(event_catalog(), pfm.present_core_pmus(), read_cpuinfo());
    if (!sel.set)
      throw UserError(sel.how + "; name a model with --pmu MODEL (" + catalog_models() + ")");
  }
  const EventSet& set = *sel.set;
  const std::vector<EncodedEvent> all = encode_event_set(set, pfm, sel.core_pmu);
  std::vector<EncodedEvent> thread, uncore;
  for (const EncodedEvent& e : all) (e.line.scope == EventScope::thread ? thread : uncore).push_back(e);

  std::printf("Event set %s: %s\n", set.model.c_str(), set.title.c_str());
  std::printf("  selected by %s; data %s (embedded at build time); encoded by libpfm4 %s\n",
              sel.how.c_str(), set.source.c_str(), pfm.version().c_str());
  for (const CounterLimit& c : set.counters)
    std::printf("  %d programmable counters per hardware thread on the %s PMU\n", c.count,
                c.perf_pmu.empty() ? "core" : c.perf_pmu.c_str());
  print_thread_events(set, thread);
  print_uncore_events(uncore);
  print_formulas(set);
  return 0;
}

}  // namespace

Runner setup_events(CLI::App& sub) {
  auto o = std::make_shared<EventsOptions>();
  sub.add_option("--pmu", o->pmu,
                 "PMU model to show instead of this machine's (skx, icx, spr, zen3, ... or a "
                 "libpfm4 PMU name)");
  sub.add_flag("--list", o->list, "list the event sets roofprof ships");
  return [o] { return run(*o); };
}

}  // namespace roofprof::cli
