// roofprof events [--pmu MODEL] [--list] [--event-dir DIR]: the event set roofprof would use on
// this machine (or on a named PMU model), with groups (W's pinned one), encodings, weights and
// formulas; user event sets (counters/user_event_sets.hpp) included.
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
#include "counters/pfm_library.hpp"
#include "counters/perf_system.hpp"
#include "counters/run_backend.hpp"
#include "counters/user_event_sets.hpp"
#include "counters/w_placement.hpp"

namespace roofprof::cli {
namespace {

using namespace roofprof::counters;

struct EventsOptions {
  std::string pmu;
  bool list = false;
  std::string event_dir;
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

void print_list(const std::vector<EventSet>& catalog) {
  std::printf("Event sets (counters/events/*.txt, embedded at build time; user sets marked):\n");
  for (const EventSet& s : catalog) {
    std::string pfm;
    for (const std::string& p : s.pfm_pmus) pfm += (pfm.empty() ? "" : " ") + p;
    std::printf("  %-5s %s%s%s\n", s.model.c_str(), s.title.c_str(),
                pfm.empty() ? "" : fmt::format("  [libpfm4: {}]", pfm).c_str(),
                s.user ? fmt::format("  [user: {}]", s.source).c_str() : "");
  }
}

// Where W's events are and whether the kernel can hold them whole, planned as a run plans them.
void print_w_group(const GroupPlan& plan, const std::vector<EncodedEvent>& thread, bool watchdog) {
  if (plan.w.empty()) return;
  const char* beside = watchdog ? " beside the NMI watchdog's" : "";
  if (const WGroupFit* f = plan.w_misfit()) {
    std::printf("  W: its events need %d counters on the %s PMU, %d are usable%s: they are multiplexed, and W "
                "is an estimate (scaled)\n", f->needed, f->perf_pmu.empty() ? "core" : f->perf_pmu.c_str(),
                f->usable, beside);
  } else {
    for (size_t g = 0; g < plan.groups.size(); ++g)
      if (plan.groups[g].pinned)
        std::printf("  W: group %zu, pinned (never rotated out): %d of the %s PMU's %d usable counters%s\n", g + 1,
                    plan.groups[g].programmable,
                    plan.groups[g].perf_pmu.empty() ? "core" : plan.groups[g].perf_pmu.c_str(),
                    [&] {
                      for (const WGroupFit& f : plan.w)
                        if (f.perf_pmu == plan.groups[g].perf_pmu) return f.usable;
                      return 0;
                    }(),
                    beside);
  }
  for (size_t i : plan.left_out)
    std::printf("  %s is not counted: W's pinned group holds every counter of its PMU\n", thread[i].line.id.c_str());
}

void print_thread_events(const EventSet& set, const std::vector<EncodedEvent>& thread, bool watchdog) {
  std::printf("\nPer-thread events (user level), in the groups roofprof opens%s:\n",
              watchdog ? " with the NMI watchdog holding one counter" : "");
  std::printf("  %-5s %-18s %-62s %-9s %s\n", "group", "id", "event", "pmu", "config");
  std::printf("  (p: pinned, scheduled before the others and never rotated out)\n");
  const GroupPlan plan = plan_event_groups(thread, usable_counters(set, watchdog), w_event_ids(set));
  const auto& groups = plan.groups;
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t i : groups[g].members) {
      const EncodedEvent& e = thread[i];
      std::printf("  %-5s %-18s %-62s %-9s %#llx\n", fmt::format("{}{}", g + 1, groups[g].pinned ? "p" : "").c_str(),
                  e.line.id.c_str(), event_text(e).c_str(), type_name(e).c_str(),
                  static_cast<unsigned long long>(e.config));
    }
  print_w_group(plan, thread, watchdog);
  size_t per_pmu_max = 0;  // flexible groups of one PMU: more than one take turns
  for (const CounterLimit& c : set.counters) {
    size_t n = 0;
    for (const PlannedGroup& g : groups) n += g.perf_pmu == c.perf_pmu && !g.pinned;
    per_pmu_max = std::max(per_pmu_max, n);
  }
  if (per_pmu_max > 1)
    std::printf("  More than one unpinned group per PMU: the kernel multiplexes them; their values are scaled "
                "(value * enabled / running) and flagged as estimates.\n");
  // What a run gets with the NMI watchdog on (most distributions' default), from the run's own plan.
  const std::vector<CounterLimit> limits = usable_counters(set, true);
  const WPlacement w = w_placement(set, thread, plan_event_groups(thread, limits, w_event_ids(set)).groups, limits);
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
  const Catalog catalog = catalog_with_user_sets(o.event_dir);
  if (o.list) {
    print_list(*catalog);
    return 0;
  }
  PfmLibrary pfm(true);
  EventSetSelection sel;
  // Another model's groups are shown as with the watchdog on (most distributions' default);
  // this machine's as its kernel says.
  bool watchdog = true;
  if (!o.pmu.empty()) {
    sel.set = find_event_set(*catalog, o.pmu);
    if (!sel.set)
      throw UserError("unknown PMU model '" + o.pmu + "' (known: " + catalog_models(*catalog) +
                      ", or a libpfm4 name such as clx or amd64_fam19h_zen3; see --list)");
    sel.how = "--pmu " + o.pmu;
    const bool is_pfm_name = o.pmu != sel.set->model;
    sel.core_pmu = is_pfm_name ? o.pmu : qualifying_pmu(*sel.set, {});
  } else {
    sel = select_event_set(*catalog, pfm.present_core_pmus(), perf_system().cpu_info());
    if (!sel.set)
      throw UserError(sel.how + "; name a model with --pmu MODEL (" + catalog_models(*catalog) + ")");
    watchdog = perf_system().kernel_setting("nmi_watchdog").value_or(0) != 0;
  }
  const EventSet& set = *sel.set;
  const std::vector<EncodedEvent> all = encode_event_set(set, pfm, sel.core_pmu);
  std::vector<EncodedEvent> thread, uncore;
  for (const EncodedEvent& e : all) (e.line.scope == EventScope::thread ? thread : uncore).push_back(e);

  std::printf("Event set %s: %s\n", set.model.c_str(), set.title.c_str());
  std::printf("  selected by %s; data %s (%s); encoded by libpfm4 %s\n", sel.how.c_str(), set.source.c_str(),
              set.user ? "a user event set" : "embedded at build time", pfm.version().c_str());
  if (sel.model_fallback) std::printf("  warning: %s\n", model_fallback_note(sel).c_str());
  for (const CounterLimit& c : set.counters)
    std::printf("  %d programmable counters per hardware thread on the %s PMU\n", c.count,
                c.perf_pmu.empty() ? "core" : c.perf_pmu.c_str());
  print_thread_events(set, thread, watchdog);
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
  sub.add_flag("--list", o->list, "list the event sets roofprof ships and the user's");
  sub.add_option("--event-dir", o->event_dir,
                 "directory of event-set files adding or overriding sets (besides "
                 "$XDG_CONFIG_HOME/roofprof/events or ~/.config/roofprof/events)");
  return [o] { return run(*o); };
}

}  // namespace roofprof::cli
