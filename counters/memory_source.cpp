#include "counters/memory_source.hpp"

#include <fmt/format.h>

#include "counters/event_set.hpp"
#include "counters/run_backend.hpp"

namespace roofprof::counters {
namespace {

bool has_uncore_lines(const EventSet& set) { return !set.lines(EventScope::uncore).empty(); }

// "uncore_imc_0, ..." : the first of the set's uncore PMUs, for messages.
std::string uncore_pmus_named(const EventSet& set) {
  const auto lines = set.lines(EventScope::uncore);
  return lines.front()->perf_pmu + (lines.size() > 1 ? ", ..." : "");
}

std::string not_permitted(const Capabilities& c) {
  return fmt::format(
      "system-wide counting is not permitted (perf_event_paranoid {}, not root, no CAP_PERFMON or CAP_SYS_ADMIN)",
      c.perf_event_paranoid ? std::to_string(*c.perf_event_paranoid) : "unreadable");
}

std::string why_not(const Capabilities& c, bool process_scope) {
  if (!c.selection.set) return "no event set for this CPU";
  const EventSet& set = *c.selection.set;
  if (!has_uncore_lines(set)) return fmt::format("the event set {} defines no memory-controller events", set.model);
  if (c.uncore_pmus.empty())
    return fmt::format("the kernel exposes none of the set's memory-controller PMUs ({}){}", uncore_pmus_named(set),
                       c.cpu.has("hypervisor") ? ": a VM does not virtualise memory controllers" : "");
  if (!uncore_allowed(c)) return not_permitted(c);
  if (!c.uncore_counters) return memory_controllers_refused(c.uncore_problem).why_not;
  if (!process_scope) return "--scope thread: memory-controller counts are system-wide, not one thread's";
  return "";
}

}  // namespace

MemorySource memory_source(const Capabilities& caps, bool process_scope) {
  MemorySource s;
  s.why_not = why_not(caps, process_scope);
  s.memory_controller = s.why_not.empty();
  return s;
}

MemorySource memory_controllers_refused(const std::string& error) {
  return {false, "the memory-controller events did not open: " + error};
}

std::string per_core_q(const EventSet& set) {
  std::string levels;
  for (const Formula& f : set.formulas) {
    const auto what = traffic_formula(f.name);
    if (!f.approximate || !what || levels.find(what->first) != std::string::npos) continue;
    levels += (levels.empty() ? "" : ", ") + what->first;
  }
  return levels.empty() ? "not measured (null)" : "the per-core approximation (level " + levels + ")";
}

std::string memory_source_note(const Capabilities& caps, const MemorySource& source) {
  if (source.memory_controller || !caps.selection.set || !has_uncore_lines(*caps.selection.set)) return "";
  return fmt::format("Q is {}, not memory-controller DRAM counts: {}", per_core_q(*caps.selection.set), source.why_not);
}

}  // namespace roofprof::counters
