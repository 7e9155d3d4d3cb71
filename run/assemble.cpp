#include "run/assemble.hpp"

#include "counters/native_counters.hpp"
#include "counters/run_backend.hpp"
#include "preload/native_format.h"
#include "result/balance.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <tuple>

namespace roofprof::run {

namespace {

// Counter totals through the event set's formulas (W, Q by level).
counters::Derived derived(const counters::EventSet& hardware, const std::vector<counters::EventInfo>& events,
                          const std::vector<double>& values) {
  std::map<std::string, double> totals;
  for (size_t e = 0; e < events.size() && e < values.size(); ++e) totals[events[e].name] = values[e];
  return counters::derive(hardware, totals);
}

// W from counter totals; null without an event set or when not counted.
std::optional<double> hardware_flops(const counters::EventSet* hardware, const std::vector<counters::EventInfo>& events,
                                     const std::vector<double>& values) {
  return hardware ? derived(*hardware, events, values).flops : std::nullopt;
}

// W from native counting's classes (counters/native_counters.hpp) where the events have them:
// the sum of the classes, as the emulated run's W (emulated_quantities); null where one is not counted.
struct NativeW {
  std::optional<double> flops;
  std::map<std::string, double> by_class;
};
std::optional<NativeW> native_flops(const std::vector<counters::EventInfo>& events, const std::vector<double>& values) {
  const int at = counters::native_events_at(events);
  if (at < 0) return std::nullopt;
  NativeW w{counters::native_w(values, at), {}};
  if (!w.flops) return w;
  for (int s = 0; s < RP_NATIVE_SLOTS; ++s)  // "flops_dp_256" -> "dp_256"
    w.by_class[events[size_t(at + s)].name.substr(6)] = values[size_t(at + s)];
  return w;
}

std::vector<std::string> names_of(const std::vector<counters::EventInfo>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.name);
  return out;
}

// The deltas of an instance's own thread: its counts less the others' part.
std::vector<double> own_counts(const regions::KeptInstance& x) {
  std::vector<double> own = x.counts;
  for (size_t i = 0; i < own.size() && i < x.others.size(); ++i) own[i] -= x.others[i];
  return own;
}

}  // namespace

InstanceQuantities hardware_instance_quantities(const std::vector<counters::EventInfo>& events,
                                                const counters::EventSet* hardware) {
  if (!hardware && counters::native_events_at(events) >= 0)  // native counting: W from its classes
    return [&events](const regions::KeptInstance& x, result::Instance& into) {
      if (!x.own_unknown) into.flops = native_flops(events, own_counts(x))->flops;
      if (!x.others.empty()) into.flops_other_threads = native_flops(events, x.others)->flops;
    };
  if (!hardware) return nullptr;
  return [&events, hardware](const regions::KeptInstance& x, result::Instance& into) {
    if (!x.own_unknown) {
      const counters::Derived d = derived(*hardware, events, own_counts(x));
      into.flops = d.flops;
      for (const auto& [level, t] : d.bytes) into.bytes[level] = result::Bytes{t.read, t.write};
    }
    if (!x.others.empty()) into.flops_other_threads = derived(*hardware, events, x.others).flops;
  };
}

std::string lower_bound_source(const std::string& source, const counters::UncountedCoreTime& other) {
  const std::string bound = fmt::format(
      "lower bound: {:.0f} % of the region's time ran on {}, whose FP operations this event set does not count; "
      "pin the program to the other cores for a complete W",
      100 * other.share, other.pmu);
  if (source == "perf") return "perf (" + bound + ")";
  return source.substr(0, source.size() - 1) + "; " + bound + ")";
}

std::string flops_source(bool multiplexed, bool not_counted, const counters::WPlacement* w) {
  const std::string why = w && !w->why.empty() ? ": " + w->why : "";
  if (not_counted)
    return "perf: not counted (a group of W's events never ran in the region, or a pinned one could not be "
           "scheduled: another program holds the counters" + why + "; see roofprof doctor)";
  // W's pinned groups are never scaled (scale_counts): only other groups can have been multiplexed.
  if (multiplexed && !(w && w->exact)) return "perf (estimate: scaled, counters were multiplexed" + why + ")";
  return "perf";
}

void set_thread_parts(result::Region& r, const regions::Aggregate& a,
                      const std::function<std::optional<double>(const std::vector<double>&)>& flops, bool timed) {
  const auto parts = a.thread_parts();
  r.per_thread.clear();
  if (parts.size() >= 2) {
    for (const auto& [number, part] : parts)
      r.per_thread.push_back(result::ThreadPart{number.first, number.second, part.calls,
                                                timed ? std::optional<double>(part.time_s) : std::nullopt,
                                                flops(part.own)});
  }
  r.flops_other_threads = a.others_totals.empty() ? std::nullopt : flops(a.others_totals);
  // Scaled (multiplexed) counts can leave the others' share a rounding below zero: none measured.
  if (r.flops_other_threads && *r.flops_other_threads < 0) r.flops_other_threads = 0.0;
  r.balance = result::balance_of(r.per_thread);
}

std::vector<result::Region> assemble_regions(const probes::Planner& planner, const regions::Aggregator& agg,
                                             const std::vector<counters::EventInfo>& events,
                                             const std::string& counter_source,
                                             const counters::EventSet* hardware, const counters::WPlacement* w) {
  std::vector<result::Region> out;
  const auto& infos = planner.regions();
  for (size_t id = 0; id < infos.size(); ++id) {
    const auto& info = infos[id];
    result::Region r;
    r.name = info.name;
    r.kind = info.kind == regions::RegionKind::Function ? "function" : "span";
    r.spec = info.spec;
    // A site is planned again in every run of --repeat; list it once.
    std::set<std::tuple<std::string, uint64_t, std::string>> seen;
    for (const auto& s : info.sites) {
      std::string role = probes::to_string(s.role);
      if (!seen.emplace(s.module, s.address, role).second) continue;
      r.locations.push_back(result::Site{s.module, s.address, s.symbol, role});
    }
    r.calls_approximate = info.calls_approximate;
    for (const char* level : {"L1", "L2", "L3", "DRAM"}) r.bytes[level] = result::Bytes{};
    r.sources["time"] = "clock";
    auto it = agg.regions().find(regions::RegionId(id));
    if (it != agg.regions().end()) {
      const auto& a = it->second;
      r.calls = a.calls;
      r.time_s = a.time_s;
      if (a.probe_subtracted.total_ns() > 0)
        r.compensation = result::Compensation{a.time_measured_s, a.probe_subtracted.measured_ns * 1e-9,
                                              a.probe_subtracted.calibrated_ns * 1e-9};
      if (auto q = regions::quantiles(a.durations_s)) r.time_per_call_s = result::Stats{q->min, q->q1, q->median, q->q3, q->max};
      r.counters_multiplexed = a.multiplexed;
      r.threads = a.threads();
      for (const auto& [reason, n] : a.closed_by) r.closed_by[regions::to_string(reason)] = n;
      for (size_t e = 0; e < events.size() && e < a.counter_totals.size(); ++e)
        if (!counters::is_native_class(events, e)) r.counters[events[e].name] = counters::counted_value(a.counter_totals[e]);
    } else {
      for (size_t e = 0; e < events.size(); ++e)
        if (!counters::is_native_class(events, e)) r.counters[events[e].name] = 0.0;  // never entered: nothing counted
    }
    if (!events.empty()) r.sources["counters"] = counter_source;
    const bool native = counters::native_events_at(events) >= 0;
    if (it != agg.regions().end())
      set_thread_parts(r, it->second,
                       [&](const std::vector<double>& v) {
                         if (native) return native_flops(events, v)->flops;
                         return hardware_flops(hardware, events, v);
                       },
                       true);
    if (native) {
      NativeW w = it != agg.regions().end() ? *native_flops(events, it->second.counter_totals) : NativeW{0.0, {}};
      r.flops = w.flops;
      r.flops_by_class = std::move(w.by_class);
      r.sources["flops"] = "native";
    }
    if (hardware && it != agg.regions().end()) {
      auto d = derived(*hardware, events, it->second.counter_totals);
      r.flops = d.flops;
      if (d.flops) {
        r.flops_by_class = d.flops_by_class;
        r.sources["flops"] = flops_source(r.counters_multiplexed, false, w);
        if (auto other = counters::uncounted_core_time(*hardware, names_of(events), it->second.group_times))
          r.sources["flops"] = lower_bound_source(r.sources["flops"], *other);
      } else if (d.flops_not_counted) {
        r.sources["flops"] = flops_source(false, true, w);
      }
      std::string bytes_source;
      for (const auto& [level, t] : d.bytes) {
        r.bytes[level] = result::Bytes{t.read, t.write};
        if (!bytes_source.empty()) bytes_source += "; ";
        bytes_source += level + (t.approximate ? ": perf (per-core approximation)"
                                               : ": perf (memory controller, system-wide: includes other "
                                                 "processes' traffic)");
      }
      if (!bytes_source.empty())
        r.sources["bytes"] = bytes_source + (r.counters_multiplexed ? " (scaled: counters were multiplexed)" : "");
      else if (d.bytes_not_counted)
        r.sources["bytes"] = "perf: not counted (the counter group never ran; see roofprof doctor)";
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> planner_notes(const probes::Planner& planner) {
  std::vector<std::string> out;
  for (const auto& u : planner.unresolved())
    out.push_back(fmt::format("region '{}' never found: {}", u.spec,
                              u.why.empty() ? "no module the program loaded has it" : u.why));
  for (const auto& info : planner.regions())
    for (const auto& copy : info.inlined_left_out)
      out.push_back(fmt::format("region '{}': not measured: {}", info.name, copy));
  for (const auto& info : planner.regions())
    if (!info.left_out.empty())
      out.push_back(fmt::format("region '{}': the program's own functions of that name are measured; left out: {}",
                                info.name, fmt::join(info.left_out, "; ")));
  return out;
}

std::vector<result::Region> untimed_regions(const probes::Planner& planner, const regions::Aggregator& agg,
                                            const std::string& calls_source) {
  std::vector<result::Region> out = assemble_regions(planner, agg, {}, "");
  for (auto& r : out) {
    r.time_s = std::nullopt;
    r.time_per_call_s = std::nullopt;
    r.sources.erase("time");
    r.sources["calls"] = calls_source;
  }
  return out;
}

}  // namespace roofprof::run
