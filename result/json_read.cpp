// JSON -> Run (schema version 1, docs/result-schema.md). Every member the schema lists must be
// present (null where the schema allows it); members this version does not know are ignored.
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/run_words.hpp"
#include "result/json_node.hpp"
#include "result/json_read.hpp"
#include "result/result.hpp"

namespace roofprof::result {
namespace {

std::vector<std::string> strings(const JsonNode& n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n.size(); ++i) out.push_back(n.element(i).string());
  return out;
}

template <class F>
void for_each_member(const JsonNode& n, F&& f) {
  for (const auto& [key, value] : n.object().items()) f(key, JsonNode(value, n.path() + "." + key));
}

Site read_site(const JsonNode& n) {
  Site s;
  s.module = n.member("module").string();
  s.offset = n.member("offset").count();
  s.symbol = n.member("symbol").string();
  s.role = n.member("role").string();
  return s;
}

std::optional<Stats> read_stats(const JsonNode& n) {
  if (n.is_null()) return std::nullopt;
  Stats s;
  s.min = n.member("min").amount();
  s.q1 = n.member("q1").amount();
  s.median = n.member("median").amount();
  s.q3 = n.member("q3").amount();
  s.max = n.member("max").amount();
  if (!(s.min <= s.q1 && s.q1 <= s.median && s.median <= s.q3 && s.q3 <= s.max))
    n.fail("expected min <= q1 <= median <= q3 <= max");
  return s;
}

std::map<std::string, double> read_numbers(const JsonNode& n) {
  std::map<std::string, double> out;
  for_each_member(n, [&](const std::string& k, const JsonNode& v) { out[k] = v.number(); });
  return out;
}

std::map<std::string, double> read_amounts(const JsonNode& n) {
  std::map<std::string, double> out;
  for_each_member(n, [&](const std::string& k, const JsonNode& v) { out[k] = v.amount(); });
  return out;
}

std::map<std::string, Bytes> read_bytes(const JsonNode& n) {
  std::map<std::string, Bytes> out;
  for_each_member(n, [&](const std::string& level, const JsonNode& v) {
    out[level] = Bytes{v.member("read").amount_or_null(), v.member("write").amount_or_null()};
  });
  return out;
}

std::map<std::string, std::optional<double>> read_counters(const JsonNode& n) {
  std::map<std::string, std::optional<double>> out;
  for_each_member(n, [&](const std::string& k, const JsonNode& v) { out[k] = v.amount_or_null(); });
  return out;
}

Group read_group(const JsonNode& n) {
  Group g;
  g.key = n.member("key").string();
  g.params = read_numbers(n.member("params"));
  g.calls = n.member("calls").count();
  g.time_s = n.member("time_s").amount();
  g.time_per_call_s = read_stats(n.member("time_per_call_s"));
  g.counters = read_counters(n.member("counters"));
  g.flops = n.member("flops").amount_or_null();
  g.bytes = read_bytes(n.member("bytes"));
  g.expected_work = n.member("expected_work").amount_or_null();
  if (n.has("call_path")) {  // optional member (absent: grouped by arguments)
    JsonNode path = n.member("call_path");
    for (size_t i = 0; i < path.size(); ++i) g.call_path.push_back(path.element(i).string());
  }
  return g;
}

}  // namespace

Group read_group_json(const nlohmann::json& j, const std::string& path) {
  return read_group(JsonNode(j, path));
}

namespace {

std::optional<Spread> read_spread(const JsonNode& n) {
  if (n.is_null()) return std::nullopt;
  return Spread{n.member("min").amount(), n.member("median").amount(), n.member("max").amount(),
                n.member("mean").amount()};  // its imbalance is max / mean
}

// The optional thread members of a region.
void read_threads(const JsonNode& n, Region& r) {
  if (n.has("per_thread")) {
    JsonNode list = n.member("per_thread");
    for (size_t i = 0; i < list.size(); ++i) {
      JsonNode p = list.element(i);
      r.per_thread.push_back(ThreadPart{int(p.member("process").integer_in(0, 1 << 30)),
                                        int(p.member("thread").integer_in(0, 1 << 30)), p.member("calls").count(),
                                        p.member("time_s").amount_or_null(), p.member("flops").amount_or_null()});
    }
  }
  if (n.has("flops_other_threads")) r.flops_other_threads = n.member("flops_other_threads").amount();
  if (n.has("balance")) {
    JsonNode b = n.member("balance");
    r.balance = Balance{b.member("threads").count(), read_spread(b.member("time_s")), read_spread(b.member("flops"))};
  }
}

// The optional instance members of a region (the run recorded instances).
void read_instances(const JsonNode& n, Region& r) {
  if (n.has("instances_left_out")) r.instances_left_out = n.member("instances_left_out").count();
  if (!n.has("instances")) return;
  JsonNode list = n.member("instances");
  for (size_t i = 0; i < list.size(); ++i) {
    JsonNode x = list.element(i);
    Instance one;
    one.run = x.member("run").integer_in(0, 1 << 30);
    one.process = x.member("process").integer_in(0, 1 << 30);
    one.thread = x.member("thread").integer_in(0, 1 << 30);
    one.pid = x.member("pid").integer();
    one.tid = x.member("tid").integer();
    one.start_s = x.member("start_s").amount();
    one.end_s = x.member("end_s").amount();
    if (one.end_s < one.start_s) x.member("end_s").fail("expected end_s >= start_s");
    one.time_s = x.member("time_s").amount_or_null();
    one.depth = uint32_t(x.member("depth").integer_in(0, 1 << 30));
    one.closed_by = x.member("closed_by").string();
    one.resumed = x.member("resumed").boolean();
    one.flops = x.member("flops").amount_or_null();
    one.bytes = read_bytes(x.member("bytes"));
    one.flops_other_threads = x.member("flops_other_threads").amount_or_null();
    r.instances.push_back(std::move(one));
  }
}

Region read_region(const JsonNode& n) {
  Region r;
  r.name = n.member("name").string();
  r.kind = n.member("kind").one_of({"function", "span"});
  r.spec = n.member("spec").string();
  JsonNode locations = n.member("locations");
  for (size_t i = 0; i < locations.size(); ++i)
    r.locations.push_back(read_site(locations.element(i)));
  r.calls = n.member("calls").count();
  if (n.has("calls_approximate")) r.calls_approximate = strings(n.member("calls_approximate"));  // optional member
  r.time_s = n.member("time_s").amount_or_null();
  r.time_per_call_s = read_stats(n.member("time_per_call_s"));
  r.counters = read_counters(n.member("counters"));
  r.counters_multiplexed = n.member("counters_multiplexed").boolean();
  r.threads = n.member("threads").count();
  for_each_member(n.member("closed_by"),
                  [&](const std::string& k, const JsonNode& v) { r.closed_by[k] = v.count(); });
  r.flops = n.member("flops").amount_or_null();
  r.flops_by_class = read_amounts(n.member("flops_by_class"));
  r.bytes = read_bytes(n.member("bytes"));
  r.instructions = n.member("instructions").amount_or_null();
  for_each_member(n.member("sources"),
                  [&](const std::string& k, const JsonNode& v) { r.sources[k] = v.string(); });
  if (n.has("groups")) {  // optional member (absent: calls not grouped)
    JsonNode groups = n.member("groups");
    for (size_t i = 0; i < groups.size(); ++i) r.groups.push_back(read_group(groups.element(i)));
  }
  if (n.has("annotation")) {  // optional member (absent: run without --annotate)
    JsonNode list = n.member("annotation");
    for (size_t i = 0; i < list.size(); ++i) {
      JsonNode a = list.element(i);
      AnnotatedInstruction x;
      x.module = a.member("module").string();
      x.address = a.member("address").count();
      x.length = uint32_t(a.member("length").integer_in(1, 15));
      x.executions = a.member("executions").count();
      x.partial = a.member("partial").boolean();
      x.flops = a.member("flops").amount();
      x.flops_by_class = read_amounts(a.member("flops_by_class"));
      x.bytes_read = a.member("bytes_read").amount();
      x.bytes_written = a.member("bytes_written").amount();
      x.traffic = read_bytes(a.member("traffic"));
      r.annotation.push_back(std::move(x));
    }
  }
  read_instances(n, r);
  if (n.has("probe_cost")) {  // optional member (absent: the probes' cost was not significant)
    JsonNode c = n.member("probe_cost");
    r.probe_cost = ProbeCost{c.member("ptrace_stops").count(), c.member("estimated_s").amount(),
                             c.member("stopped_at_s").amount_or_null()};
  }
  if (n.has("compensation")) {  // optional member (absent: nothing subtracted)
    JsonNode c = n.member("compensation");
    r.compensation = Compensation{c.member("time_measured_s").amount(), c.member("measured_s").amount(),
                                  c.member("calibrated_s").amount()};
  }
  read_threads(n, r);
  return r;
}

Host read_host(const JsonNode& n) {
  Host h;
  h.hostname = n.member("hostname").string();
  h.kernel = n.member("kernel").string();
  h.cpu_model = n.member("cpu_model").string();
  h.cpu_vendor = n.member("cpu_vendor").string();
  h.logical_cpus = n.member("logical_cpus").integer_or_null();
  h.pmu = n.member("pmu").string();
  return h;
}

Job read_job(const JsonNode& n) {
  Job job;
  job.launcher = n.member("launcher").string();
  job.rank = n.member("rank").integer();
  if (job.rank < 0) n.member("rank").fail("expected 0 or more");
  job.size = n.member("size").integer_or_null();
  if (job.size && *job.size <= job.rank) n.member("size").fail("expected more than the rank");
  if (!n.member("id").value().is_null()) job.id = n.member("id").string();
  return job;
}

int read_schema(const JsonNode& doc) {
  if (!doc.value().is_object() || !doc.value().contains("schema"))
    throw UserError("not a roofprof result (no \"schema\" member at the top level)");
  int schema = doc.member("schema").integer();
  if (schema > kSchemaVersion)
    throw UserError("result schema " + std::to_string(schema) +
                    " is newer than this roofprof understands (" + std::to_string(kSchemaVersion) +
                    "); use a newer roofprof to read it");
  if (schema < 1) doc.member("schema").fail("schema version must be 1 or more");
  return schema;
}

Survey read_survey(const JsonNode& n) {
  Survey s;
  s.event = n.member("event").string();
  s.period_s = n.member("period_s").amount();
  s.samples = n.member("samples").count();
  s.lost = n.member("lost").count();
  JsonNode fs = n.member("functions");
  for (size_t i = 0; i < fs.size(); ++i) {
    JsonNode f = fs.element(i);
    SurveyFunction x;
    x.name = f.member("name").string();
    x.symbol = f.member("symbol").string();
    x.module = f.member("module").string();
    if (!f.member("address").is_null()) x.address = f.member("address").count();
    if (!f.member("source").is_null()) x.source = f.member("source").string();
    x.self_samples = f.member("self_samples").count();
    x.total_samples = f.member("total_samples").count();
    x.probe = f.member("probe").one_of({"patch", "breakpoint", "agent", "inlined", "none"});
    if (!f.member("region").is_null()) x.region = f.member("region").count();
    x.self_flops = f.member("self_flops").amount_or_null();
    x.self_instructions = f.member("self_instructions").amount_or_null();
    JsonNode bytes = f.member("self_bytes");
    if (!bytes.value().is_object()) bytes.fail("expected an object");
    for (const auto& [level, b] : bytes.value().items()) {
      JsonNode lb(b, bytes.path() + "." + level);
      x.self_bytes[level] = Bytes{lb.member("read").amount_or_null(), lb.member("write").amount_or_null()};
    }
    if (f.has("variant_of")) x.variant_of = f.member("variant_of").string();  // optional member
    s.functions.push_back(std::move(x));
  }
  return s;
}

}  // namespace

Region read_region_json(const nlohmann::json& j, const std::string& path) {
  return read_region(JsonNode(j, path));
}

Run from_json(const nlohmann::json& j) { return read_document(j, std::nullopt); }

Run read_document(const nlohmann::json& j, std::optional<std::vector<Region>> regions_read) {
  JsonNode doc(j, "");
  Run run;
  run.schema = read_schema(doc);
  JsonNode tool = doc.member("tool");
  tool.member("name").string();
  run.tool_version = tool.member("version").string();
  run.command = strings(doc.member("command"));
  run.pid = doc.member("pid").integer_or_null();
  run.exit_status = doc.member("exit_status").integer_in_or_null(0, 255);
  run.term_signal = doc.member("term_signal").integer_in_or_null(1, 64);
  run.complete = doc.member("complete").boolean();
  using namespace run_words;
  run.backend = doc.member("backend").one_of({kPerf, kNative, kEmul, kTime, kMixed});
  run.scope = doc.member("scope").one_of({kProcess, kThread, kMixed});
  run.repeat = doc.member("repeat").integer();
  if (run.repeat < 1) doc.member("repeat").fail("expected 1 or more");
  if (doc.has("cache_state")) {  // optional member: absent in files written before it existed
    run.cache_state = doc.member("cache_state").string();
    if (run.cache_state != kWarm && run.cache_state != kCold)
      doc.member("cache_state").fail(fmt::format("expected \"{}\" or \"{}\"", kWarm, kCold));
  }
  if (doc.has("cache_evictions") && !doc.member("cache_evictions").is_null())
    run.cache_evictions = doc.member("cache_evictions").count();
  run.wall_time_s = doc.member("wall_time_s").amount_or_null();
  run.host = read_host(doc.member("host"));
  if (doc.has("job")) run.job = read_job(doc.member("job"));  // optional member
  if (doc.has("instances_per_thread"))  // optional member (absent: instances not recorded)
    run.instances_per_thread = doc.member("instances_per_thread").count();
  if (doc.has("agent_boundary")) {  // optional member
    JsonNode b = doc.member("agent_boundary");
    run.agent_boundary = AgentBoundary{b.member("inside_s").amount(), b.member("per_call_s").amount(),
                                       uint32_t(b.member("calls").count())};
  }
  if (doc.has("agent_reader")) {  // optional member
    JsonNode r = doc.member("agent_reader");
    run.agent_reader = AgentReader{r.member("cpu_s").amount(), r.member("sleeps").count(), r.member("rings").count()};
  }
  if (doc.has("native_counting")) {  // optional member
    JsonNode modules = doc.member("native_counting").member("modules");
    NativeCounting nc;
    for (size_t i = 0; i < modules.size(); ++i) {
      JsonNode m = modules.element(i);
      NativeModule out{m.member("path").string(), m.member("sites").count(), m.member("fp_insns").count(),
                       m.member("uncounted_fp_insns").count(), {}, m.member("uncounted_ran").count(),
                       m.member("failure").string()};
      JsonNode uncounted = m.member("uncounted");
      for (size_t k = 0; k < uncounted.size(); ++k) {
        JsonNode u = uncounted.element(k);
        NativeUncounted place{u.member("address").count(), u.member("function").string(), u.member("why").string(),
                              u.member("fp_insns").count(), std::nullopt};
        if (!u.member("ran").is_null()) place.ran = u.member("ran").boolean();
        out.uncounted.push_back(std::move(place));
      }
      nc.modules.push_back(std::move(out));
    }
    run.native_counting = std::move(nc);
  }
  if (doc.has("survey")) run.survey = read_survey(doc.member("survey"));  // optional member
  if (doc.has("simulated_caches")) {  // optional member
    JsonNode levels = doc.member("simulated_caches");
    for (size_t i = 0; i < levels.size(); ++i) {
      JsonNode l = levels.element(i);
      SimulatedCache c{l.member("name").string(), l.member("size").count(), l.member("ways").count(),
                       l.member("line").count(), std::nullopt};
      if (!l.member("inclusive").is_null()) c.inclusive = l.member("inclusive").boolean();
      run.simulated_caches.push_back(std::move(c));
    }
  }
  if (doc.has("simulated_caches_source"))  // optional member
    run.simulated_caches_source = doc.member("simulated_caches_source").string();
  run.events = strings(doc.member("events"));
  JsonNode regions = doc.member("regions");
  if (regions_read) {
    regions.size();  // still an array
    run.regions = std::move(*regions_read);
  } else {
    for (size_t i = 0; i < regions.size(); ++i)
      run.regions.push_back(read_region(regions.element(i)));
  }
  run.warnings = strings(doc.member("warnings"));
  if (run.survey)
    for (size_t i = 0; i < run.survey->functions.size(); ++i)
      if (run.survey->functions[i].region && *run.survey->functions[i].region >= run.regions.size())
        doc.member("survey").member("functions").element(i).member("region").fail("no such region");
  return run;
}

}  // namespace roofprof::result
