#include "counters/run_backend.hpp"
#include "counters/native_counters.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "common/error.hpp"
#include "counters/combined_backend.hpp"
#include "counters/event_encoding.hpp"
#include "counters/group_plan.hpp"
#include "counters/memory_source.hpp"
#include "counters/perf_hardware.hpp"
#include "counters/pfm_library.hpp"
#include "counters/sysfs_pmu.hpp"
#include "counters/uncore_counters.hpp"

namespace roofprof::counters {

std::vector<CounterLimit> usable_counters(const EventSet& set, bool nmi_watchdog) {
  std::vector<CounterLimit> out = set.counters;
  if (nmi_watchdog)
    for (CounterLimit& c : out) c.count = std::max(1, c.count - 1);
  return out;
}

std::vector<std::string> group_plan_notes(const GroupPlan& plan, const std::vector<EncodedEvent>& events,
                                          bool nmi_watchdog) {
  std::vector<std::string> notes;
  if (const WGroupFit* f = plan.w_misfit()) {
    // Without the watchdog the PMU has one counter more; with Hyper-Threading off (4-counter
    // Intel cores) twice as many.
    const bool watchdog_is_enough = nmi_watchdog && f->needed <= f->usable + 1;
    notes.push_back(fmt::format(
        "W is an estimate: its events need {} counters on the {} PMU and {} are usable per hardware thread{}, so "
        "the kernel rotates them (multiplexed, scaled); {} gives W's events one group that is never rotated out",
        f->needed, f->perf_pmu.empty() ? "core" : f->perf_pmu, f->usable,
        nmi_watchdog ? " beside the NMI watchdog" : "",
        watchdog_is_enough ? "`sudo sysctl -w kernel.nmi_watchdog=0`"
                           : "more counters per hardware thread (Hyper-Threading off doubles the 4 of Intel cores "
                             "up to Cascade Lake)"));
  }
  for (size_t i : plan.left_out)
    notes.push_back(fmt::format("event {} not counted: W's pinned group holds every counter of the {} PMU",
                                events[i].line.id, events[i].line.perf_pmu.empty() ? "core" : events[i].line.perf_pmu));
  return notes;
}

HardwareEvents encode_run_events(const EventSet& set, const std::string& core_pmu,
                                 const PfmLibrary& pfm) {
  HardwareEvents out;
  for (const EventLine* line : set.lines(EventScope::thread)) {
    if (!line->perf_pmu.empty() && !sysfs_pmu_type(line->perf_pmu)) {
      out.notes.push_back(fmt::format("event {} not counted: this kernel has no PMU '{}' ({})",
                                      line->id, line->perf_pmu, set.source));
      continue;
    }
    try {
      out.events.push_back(encode_line(set, *line, pfm, core_pmu));
    } catch (const UserError& e) {
      out.notes.push_back(fmt::format("event {} not counted: {}", line->id, e.what()));
    }
  }
  return out;
}

namespace {

// The memory-controller events, when memory_source() says the run gets them: `per_thread` with
// them as its system-wide events. Otherwise (or when they fail to open now) `per_thread`, and
// the note that says why Q is the per-core approximation.
std::unique_ptr<Backend> add_memory_controllers(std::unique_ptr<Backend> per_thread, const Capabilities& caps,
                                                bool process_scope, std::vector<std::string>& notes) {
  MemorySource source = memory_source(caps, process_scope);
  if (source.memory_controller) {
    try {
      const UncoreEvents uncore = encode_uncore_events(*caps.selection.set);
      auto opened = std::make_unique<UncoreCounters>(uncore.events);
      notes.insert(notes.end(), uncore.notes.begin(), uncore.notes.end());
      return with_system_wide(std::move(per_thread), std::move(opened));
    } catch (const UserError& e) {
      source = memory_controllers_refused(e.what());
    }
  }
  if (std::string note = memory_source_note(caps, source); !note.empty()) notes.push_back(std::move(note));
  return per_thread;
}

}  // namespace

RunCounting make_run_counting(BackendKind kind, const Capabilities& caps,
                              const std::vector<std::string>& software_events, bool process_scope) {
  RunCounting rc;
  std::vector<std::unique_ptr<Backend>> parts;
  const bool no_software = software_events.size() == 1 && software_events[0] == "none";  // --events none
  if (no_software) {
    // the clock only: no counter is read at a boundary
  } else if (caps.software_counters) {
    rc.user_level = !kernel_counting_allowed(caps);
    parts.push_back(make_perf_software_backend(software_events, rc.user_level));
    if (rc.user_level)
      rc.notes.push_back(fmt::format(
          "software counters at user level only (perf_event_paranoid={}, not root, no CAP_PERFMON): page-faults:u "
          "leaves out faults taken inside system calls; context-switches cannot be counted (docs/methodology.md)",
          caps.perf_event_paranoid ? std::to_string(*caps.perf_event_paranoid) : "?"));
  } else if (!software_events.empty()) {
    throw UserError("--events: " + caps.software_problem);
  }
  if (kind == BackendKind::perf && caps.selection.set) {
    const EventSet& set = *caps.selection.set;
    // Only what is opened is encoded: the per-thread lines (uncore lines are another backend's).
    HardwareEvents hw;
    {
      PfmLibrary pfm(false);
      hw = encode_run_events(set, caps.selection.core_pmu, pfm);
    }
    rc.notes.insert(rc.notes.end(), hw.notes.begin(), hw.notes.end());
    if (caps.nmi_watchdog)
      rc.notes.push_back("the NMI watchdog holds one hardware counter (kernel.nmi_watchdog = 1): "
                         "groups leave it free and multiplex more; `sysctl kernel.nmi_watchdog=0` "
                         "gives roofprof every counter");
    if (std::string note = model_fallback_note(caps.selection); !note.empty()) rc.notes.push_back(std::move(note));
    if (!hw.events.empty()) {
      const std::vector<CounterLimit> limits = usable_counters(set, caps.nmi_watchdog);
      const std::set<std::string> w_ids = w_event_ids(set);
      const GroupPlan plan = plan_event_groups(hw.events, limits, w_ids);
      const std::vector<std::string> plan_notes = group_plan_notes(plan, hw.events, caps.nmi_watchdog);
      rc.notes.insert(rc.notes.end(), plan_notes.begin(), plan_notes.end());
      rc.w = w_placement(set, hw.events, plan.groups, limits);
      parts.push_back(make_perf_hardware_backend(hw.events, limits, perf_system().sysfs_root(), w_ids));
      rc.event_set = &set;
      rc.catalog = caps.catalog;
    }
  }
  if (kind == BackendKind::native) parts.push_back(make_native_backend());
  if (parts.empty()) rc.backend = make_null_backend();
  else if (parts.size() == 1) rc.backend = std::move(parts.front());
  else rc.backend = make_combined_backend(std::move(parts));
  if (rc.event_set) rc.backend = add_memory_controllers(std::move(rc.backend), caps, process_scope, rc.notes);
  return rc;
}

std::optional<std::pair<std::string, std::string>> traffic_formula(const std::string& name) {
  if (name == "Q.read" || name == "Q.write") return std::pair{std::string("DRAM"), name.substr(2)};
  for (const char* level : {"L2", "L3", "DRAM"})
    for (const char* dir : {"read", "write"})
      if (name == fmt::format("Q.{}.{}", level, dir)) return std::pair{std::string(level), std::string(dir)};
  return std::nullopt;
}

namespace {

bool any_not_counted(const Formula& f, const std::map<std::string, double>& totals) {
  for (const Term& t : f.terms)
    if (auto it = totals.find(t.id); it != totals.end() && std::isnan(it->second)) return true;
  return false;
}

}  // namespace

Derived derive(const EventSet& set, const std::map<std::string, double>& totals) {
  Derived d;
  if (const Formula* w = set.formula("W")) {
    d.flops = evaluate(*w, totals);
    d.flops_not_counted = !d.flops && any_not_counted(*w, totals);
    if (d.flops)
      for (const Term& t : w->terms)
        if (auto it = totals.find(t.id); it != totals.end() && !std::isnan(it->second))
          d.flops_by_class[t.id] = t.weight * it->second;
  }
  // Memory-controller formulas (DRAM, exact) need uncore counts; otherwise the per-core
  // approximations, each at the level it really measures.
  for (bool approximate : {false, true}) {
    for (const Formula& f : set.formulas) {
      if (f.approximate != approximate) continue;
      const auto what = traffic_formula(f.name);
      if (!what) continue;
      const std::optional<double> v = evaluate(f, totals);
      if (!v) {
        d.bytes_not_counted = d.bytes_not_counted || any_not_counted(f, totals);
        continue;
      }
      Traffic& t = d.bytes[what->first];
      (what->second == "read" ? t.read : t.write) = v;
      t.approximate = approximate;
    }
    if (!d.bytes.empty()) break;
  }
  return d;
}

}  // namespace roofprof::counters
