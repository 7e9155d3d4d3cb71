#include "counters/run_backend.hpp"

#include <cmath>
#include <fmt/format.h>

#include "common/error.hpp"
#include "counters/combined_backend.hpp"
#include "counters/event_encoding.hpp"
#include "counters/perf_hardware.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {

RunCounting make_run_counting(BackendKind kind, const Capabilities& caps,
                              const std::vector<std::string>& software_events) {
  RunCounting rc;
  std::vector<std::unique_ptr<Backend>> parts;
  if (caps.software_counters) {
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
    PfmLibrary pfm(false);
    std::vector<EncodedEvent> thread_events;
    for (auto& e : encode_event_set(set, pfm, caps.selection.core_pmu))
      if (e.line.scope == EventScope::thread) thread_events.push_back(std::move(e));
    parts.push_back(make_perf_hardware_backend(thread_events, set.counters));
    rc.event_set = &set;
  }
  if (parts.empty()) rc.backend = make_null_backend();
  else if (parts.size() == 1) rc.backend = std::move(parts.front());
  else rc.backend = make_combined_backend(std::move(parts));
  return rc;
}

Derived derive(const EventSet& set, const std::map<std::string, double>& totals) {
  Derived d;
  if (const Formula* w = set.formula("W")) {
    d.flops = evaluate(*w, totals);
    if (d.flops)
      for (const Term& t : w->terms)
        if (auto it = totals.find(t.id); it != totals.end() && !std::isnan(it->second))
          d.flops_by_class[t.id] = t.weight * it->second;
  }
  // Memory-controller formulas need uncore counts; thread-scope runs use the approximation.
  const Formula* rd = set.formula("Q.read");
  const Formula* wr = set.formula("Q.write");
  std::optional<double> r = rd ? evaluate(*rd, totals) : std::nullopt;
  std::optional<double> w = wr ? evaluate(*wr, totals) : std::nullopt;
  if (!r && !w) {
    rd = set.formula("Q.read", true);
    wr = set.formula("Q.write", true);
    r = rd ? evaluate(*rd, totals) : std::nullopt;
    w = wr ? evaluate(*wr, totals) : std::nullopt;
    d.bytes_approximate = r || w;
  }
  d.read_bytes = r;
  d.write_bytes = w;
  return d;
}

}  // namespace roofprof::counters
