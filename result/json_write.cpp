// Run -> JSON (schema version 1, docs/result-schema.md). Unknown values are written as null.
#include "result/json_write.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "result/result.hpp"

namespace roofprof::result {
namespace {

// Every number in a result is finite; a NaN or infinity is a bug in whoever filled the Run
// (JSON has no way to write it, and nlohmann would silently turn it into null).
double finite(double v, const std::string& where) {
  if (!std::isfinite(v))
    throw std::invalid_argument("result::to_json: " + where + " is not a finite number");
  return v;
}

// A NaN in an optional is "not counted" (counters::kNotCounted) and is written as null.
template <class J>
J optional_number(const std::optional<double>& v, const std::string& where) {
  return v && !std::isnan(*v) ? J(finite(*v, where)) : J(nullptr);
}

// Null when absent; a NaN is a producer's bug here, not "not counted".
template <class J>
J finite_or_null(const std::optional<double>& v, const std::string& where) {
  return v ? J(finite(*v, where)) : J(nullptr);
}

template <class J>
J optional_int(const std::optional<int>& v) {
  return v ? J(*v) : J(nullptr);
}

template <class J>
J optional_number_map(const std::map<std::string, std::optional<double>>& m,
                      const std::string& where) {
  J out = J::object();
  for (const auto& [k, v] : m) out[k] = optional_number<J>(v, where + "." + k);
  return out;
}

template <class J>
J number_map(const std::map<std::string, double>& m, const std::string& where) {
  J out = J::object();
  for (const auto& [k, v] : m) out[k] = finite(v, where + "." + k);
  return out;
}

template <class J>
J site_json(const Site& s) {
  return J{{"module", s.module}, {"offset", s.offset}, {"symbol", s.symbol}, {"role", s.role}};
}

template <class J>
J stats_json(const std::optional<Stats>& s, const std::string& where) {
  if (!s) return J(nullptr);
  return J{{"min", finite(s->min, where + ".min")},
           {"q1", finite(s->q1, where + ".q1")},
           {"median", finite(s->median, where + ".median")},
           {"q3", finite(s->q3, where + ".q3")},
           {"max", finite(s->max, where + ".max")}};
}

template <class J>
J bytes_json(const std::map<std::string, Bytes>& m, const std::string& where) {
  J out = J::object();
  for (const auto& [level, b] : m)
    out[level] = J{{"read", optional_number<J>(b.read, where + "." + level + ".read")},
                   {"write", optional_number<J>(b.write, where + "." + level + ".write")}};
  return out;
}

template <class J>
J group_json(const Group& g, const std::string& where) {
  J out{
      {"key", g.key},
      {"params", number_map<J>(g.params, where + ".params")},
      {"calls", g.calls},
      {"time_s", finite(g.time_s, where + ".time_s")},
      {"time_per_call_s", stats_json<J>(g.time_per_call_s, where + ".time_per_call_s")},
      {"counters", optional_number_map<J>(g.counters, where + ".counters")},
      {"flops", optional_number<J>(g.flops, where + ".flops")},
      {"bytes", bytes_json<J>(g.bytes, where + ".bytes")},
      {"expected_work", optional_number<J>(g.expected_work, where + ".expected_work")},
  };
  if (!g.call_path.empty()) out["call_path"] = g.call_path;  // optional member: groups by call path
  return out;
}

template <class J>
J annotation_json(const std::vector<AnnotatedInstruction>& insns, const std::string& where) {
  J out = J::array();
  for (const auto& a : insns)
    out.push_back(J{{"module", a.module},
                    {"address", a.address},
                    {"length", a.length},
                    {"executions", a.executions},
                    {"partial", a.partial},
                    {"flops", finite(a.flops, where + ".annotation.flops")},
                    {"flops_by_class", number_map<J>(a.flops_by_class, where + ".annotation.flops_by_class")},
                    {"bytes_read", finite(a.bytes_read, where + ".annotation.bytes_read")},
                    {"bytes_written", finite(a.bytes_written, where + ".annotation.bytes_written")},
                    {"traffic", bytes_json<J>(a.traffic, where + ".annotation.traffic")}});
  return out;
}

template <class J>
J spread_json(const std::optional<Spread>& s, const std::string& where) {
  if (!s) return J(nullptr);
  return J{{"min", finite(s->min, where + ".min")},
           {"median", finite(s->median, where + ".median")},
           {"max", finite(s->max, where + ".max")},
           {"mean", finite(s->mean, where + ".mean")},
           {"imbalance", optional_number<J>(s->imbalance(), where + ".imbalance")}};
}

// The optional thread members of a region (absent when fewer than two threads called it).
template <class J>
void threads_json(J& out, const Region& r, const std::string& where) {
  if (!r.per_thread.empty()) {
    J parts = J::array();
    for (size_t i = 0; i < r.per_thread.size(); ++i) {
      const ThreadPart& p = r.per_thread[i];
      const std::string at = where + ".per_thread[" + std::to_string(i) + "]";
      parts.push_back(J{{"process", p.process},
                        {"thread", p.thread},
                        {"calls", p.calls},
                        {"time_s", finite_or_null<J>(p.time_s, at + ".time_s")},
                        {"flops", optional_number<J>(p.flops, at + ".flops")}});
    }
    out["per_thread"] = std::move(parts);
  }
  if (r.flops_other_threads) out["flops_other_threads"] = finite(*r.flops_other_threads, where + ".flops_other_threads");
  if (r.balance)
    out["balance"] = J{{"threads", r.balance->threads},
                       {"time_s", spread_json<J>(r.balance->time_s, where + ".balance.time_s")},
                       {"flops", spread_json<J>(r.balance->flops, where + ".balance.flops")}};
}

template <class J>
J instances_json(const std::vector<Instance>& list, const std::string& where) {
  J out = J::array();
  for (size_t i = 0; i < list.size(); ++i) {
    const Instance& x = list[i];
    const std::string at = where + ".instances[" + std::to_string(i) + "]";
    J one{{"run", x.run},
          {"process", x.process},
          {"thread", x.thread},
          {"pid", x.pid},
          {"tid", x.tid},
          {"start_s", finite(x.start_s, at + ".start_s")},
          {"end_s", finite(x.end_s, at + ".end_s")},
          {"time_s", finite_or_null<J>(x.time_s, at + ".time_s")},
          {"depth", x.depth},
          {"closed_by", x.closed_by},
          {"resumed", x.resumed},
          {"flops", optional_number<J>(x.flops, at + ".flops")},
          {"bytes", bytes_json<J>(x.bytes, at + ".bytes")},
          {"flops_other_threads", optional_number<J>(x.flops_other_threads, at + ".flops_other_threads")}};
    out.push_back(std::move(one));
  }
  return out;
}

template <class J>
J region_json(const Region& r, const std::string& where, bool with_instances) {
  J locations = J::array();
  for (const auto& s : r.locations) locations.push_back(site_json<J>(s));
  J closed_by = J::object();
  for (const auto& [reason, n] : r.closed_by) closed_by[reason] = n;
  J sources = J::object();
  for (const auto& [quantity, backend] : r.sources) sources[quantity] = backend;
  J out{
      {"name", r.name},
      {"kind", r.kind},
      {"spec", r.spec},
      {"locations", std::move(locations)},
      {"calls", r.calls},
      {"time_s", finite_or_null<J>(r.time_s, where + ".time_s")},
      {"time_per_call_s", stats_json<J>(r.time_per_call_s, where + ".time_per_call_s")},
      {"counters", optional_number_map<J>(r.counters, where + ".counters")},
      {"counters_multiplexed", r.counters_multiplexed},
      {"threads", r.threads},
      {"closed_by", std::move(closed_by)},
      {"flops", optional_number<J>(r.flops, where + ".flops")},
      {"flops_by_class", number_map<J>(r.flops_by_class, where + ".flops_by_class")},
      {"bytes", bytes_json<J>(r.bytes, where + ".bytes")},
      {"instructions", optional_number<J>(r.instructions, where + ".instructions")},
      {"sources", std::move(sources)},
  };
  if (!r.groups.empty()) {  // optional member: absent when the calls were not grouped
    J groups = J::array();
    for (size_t i = 0; i < r.groups.size(); ++i)
      groups.push_back(group_json<J>(r.groups[i], where + ".groups[" + std::to_string(i) + "]"));
    out["groups"] = std::move(groups);
  }
  if (!r.calls_approximate.empty()) {  // optional member: absent when the calls are exact
    J why = J::array();
    for (const auto& w : r.calls_approximate) why.push_back(w);
    out["calls_approximate"] = std::move(why);
  }
  if (!r.annotation.empty()) out["annotation"] = annotation_json<J>(r.annotation, where);  // optional member
  threads_json(out, r, where);
  if (with_instances) {  // optional members: the run recorded instances
    out["instances"] = instances_json<J>(r.instances, where);
    out["instances_left_out"] = r.instances_left_out;
  }
  if (r.compensation) {  // optional member: absent when nothing was subtracted
    const Compensation& c = *r.compensation;
    out["compensation"] = J{{"time_measured_s", finite(c.time_measured_s, where + ".compensation.time_measured_s")},
                            {"measured_s", finite(c.measured_s, where + ".compensation.measured_s")},
                            {"calibrated_s", finite(c.calibrated_s, where + ".compensation.calibrated_s")}};
  }
  if (r.probe_cost) {  // optional member: absent when the probes' cost was not significant
    const ProbeCost& c = *r.probe_cost;
    out["probe_cost"] = J{{"ptrace_stops", c.ptrace_stops},
                          {"estimated_s", finite(c.estimated_s, where + ".probe_cost.estimated_s")},
                          {"stopped_at_s", optional_number<J>(c.stopped_at_s, where + ".probe_cost.stopped_at_s")}};
  }
  return out;
}

template <class J>
J host_json(const Host& h) {
  return J{{"hostname", h.hostname},
           {"kernel", h.kernel},
           {"cpu_model", h.cpu_model},
           {"cpu_vendor", h.cpu_vendor},
           {"logical_cpus", optional_int<J>(h.logical_cpus)},
           {"pmu", h.pmu}};
}

template <class J>
J job_json(const Job& job) {
  return J{{"launcher", job.launcher},
           {"rank", job.rank},
           {"size", optional_int<J>(job.size)},
           {"id", job.id ? J(*job.id) : J(nullptr)}};
}

}  // namespace

template <class J>
J survey_json(const Survey& s) {
  J functions = J::array();
  for (const auto& f : s.functions) {
    J o{{"name", f.name}, {"symbol", f.symbol}, {"module", f.module},
        {"address", f.address ? J(*f.address) : J(nullptr)}, {"source", f.source ? J(*f.source) : J(nullptr)},
        {"self_samples", f.self_samples}, {"total_samples", f.total_samples}, {"probe", f.probe},
        {"region", f.region ? J(*f.region) : J(nullptr)},
        {"self_flops", finite_or_null<J>(f.self_flops, "survey.self_flops")},
        {"self_instructions", finite_or_null<J>(f.self_instructions, "survey.self_instructions")}};
    J bytes = J::object();
    for (const auto& [level, b] : f.self_bytes)
      bytes[level] = J{{"read", finite_or_null<J>(b.read, "survey.self_bytes")},
                       {"write", finite_or_null<J>(b.write, "survey.self_bytes")}};
    o["self_bytes"] = std::move(bytes);
    if (f.variant_of) o["variant_of"] = *f.variant_of;  // optional member
    functions.push_back(std::move(o));
  }
  return J{{"event", s.event}, {"period_s", finite(s.period_s, "survey.period_s")}, {"samples", s.samples},
           {"lost", s.lost}, {"functions", std::move(functions)}};
}

template <class J>
J build_json(const Run& run) {
  J regions = J::array();
  for (size_t i = 0; i < run.regions.size(); ++i)
    regions.push_back(region_json<J>(run.regions[i], "regions[" + std::to_string(i) + "]",
                                     run.instances_per_thread.has_value()));
  J out{
      {"schema", run.schema},
      {"tool", J{{"name", "roofprof"}, {"version", run.tool_version}}},
      {"command", run.command},
      {"pid", optional_int<J>(run.pid)},
      {"exit_status", optional_int<J>(run.exit_status)},
      {"term_signal", optional_int<J>(run.term_signal)},
      {"complete", run.complete},
      {"backend", run.backend},
      {"scope", run.scope},
      {"repeat", run.repeat},
      {"cache_state", run.cache_state},
      {"cache_evictions", run.cache_evictions ? J(*run.cache_evictions) : J(nullptr)},
      {"wall_time_s", finite_or_null<J>(run.wall_time_s, "wall_time_s")},
      {"host", host_json<J>(run.host)},
      {"events", run.events},
      {"regions", std::move(regions)},
      {"warnings", run.warnings},
  };
  if (run.job) out["job"] = job_json<J>(*run.job);  // optional member: only for a rank of a job
  if (run.instances_per_thread) out["instances_per_thread"] = *run.instances_per_thread;  // optional member
  if (run.agent_boundary) {  // optional member: the agent's boundary cost, measured at start
    const AgentBoundary& b = *run.agent_boundary;
    out["agent_boundary"] = J{{"inside_s", finite(b.inside_s, "agent_boundary.inside_s")},
                              {"per_call_s", finite(b.per_call_s, "agent_boundary.per_call_s")},
                              {"calls", b.calls}};
  }
  if (run.agent_reader) {  // optional member: what draining the agent's records cost roofprof
    const AgentReader& r = *run.agent_reader;
    out["agent_reader"] = J{{"cpu_s", finite(r.cpu_s, "agent_reader.cpu_s")}, {"sleeps", r.sleeps}, {"rings", r.rings}};
  }
  if (run.native_counting) {  // optional member: what native counting patched
    J modules = J::array();
    for (const NativeModule& m : run.native_counting->modules) {
      J uncounted = J::array();
      for (const NativeUncounted& u : m.uncounted)
        uncounted.push_back(J{{"address", u.address},
                              {"function", u.function},
                              {"why", u.why},
                              {"fp_insns", u.fp_insns},
                              {"ran", u.ran ? J(*u.ran) : J(nullptr)}});
      modules.push_back(J{{"path", m.path},
                          {"sites", m.sites},
                          {"fp_insns", m.fp_insns},
                          {"uncounted_fp_insns", m.uncounted_fp_insns},
                          {"uncounted", std::move(uncounted)},
                          {"uncounted_ran", m.uncounted_ran},
                          {"failure", m.failure}});
    }
    out["native_counting"] = J{{"modules", std::move(modules)}};
  }
  if (run.survey) out["survey"] = survey_json<J>(*run.survey);  // optional member: survey results
  if (!run.simulated_caches.empty()) {  // optional member: emulated runs with cache simulation
    J levels = J::array();
    for (const SimulatedCache& c : run.simulated_caches)
      levels.push_back(J{{"name", c.name},
                         {"size", c.size},
                         {"ways", c.ways},
                         {"line", c.line},
                         {"inclusive", c.inclusive ? J(*c.inclusive) : J(nullptr)}});
    out["simulated_caches"] = std::move(levels);
  }
  if (!run.simulated_caches_source.empty()) out["simulated_caches_source"] = run.simulated_caches_source;
  return out;
}

template nlohmann::json build_json<nlohmann::json>(const Run&);
template nlohmann::ordered_json build_json<nlohmann::ordered_json>(const Run&);

nlohmann::json to_json(const Run& run) { return build_json<nlohmann::json>(run); }

}  // namespace roofprof::result
