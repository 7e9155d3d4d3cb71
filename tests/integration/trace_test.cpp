// report --trace and --hatchet on real runs (docs/report.md): the trace has one Chrome "X"
// event per region instance on its thread, nested as the calls were, and passes a schema check
// of the Trace Event Format; the Hatchet export is a literal tree of the call paths.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "harness.hpp"

namespace it {
namespace {

// The Trace Event Format's JSON object form (the parts Perfetto's importer reads): traceEvents
// a list; every event a name, a phase, a pid and a tid; "X" events a ts and a dur >= 0 in
// microseconds and args an object; "M" events process_name/thread_name with args.name, or
// thread_sort_index with args.sort_index.
void expect_chrome_trace_schema(const json& t) {
  ASSERT_TRUE(t.is_object());
  ASSERT_TRUE(t["traceEvents"].is_array());
  EXPECT_TRUE(t["displayTimeUnit"] == "ns" || t["displayTimeUnit"] == "ms");
  for (const auto& e : t["traceEvents"]) {
    ASSERT_TRUE(e.is_object()) << e.dump();
    ASSERT_TRUE(e["name"].is_string()) << e.dump();
    ASSERT_TRUE(e["ph"].is_string()) << e.dump();
    EXPECT_TRUE(e["pid"].is_number_integer()) << e.dump();
    EXPECT_TRUE(e["tid"].is_number_integer()) << e.dump();
    const std::string ph = e["ph"];
    if (ph == "X") {
      EXPECT_TRUE(e["ts"].is_number()) << e.dump();
      ASSERT_TRUE(e["dur"].is_number()) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
      EXPECT_TRUE(e["cat"].is_string()) << e.dump();
      ASSERT_TRUE(e["args"].is_object()) << e.dump();
      for (const char* k : {"W", "T", "P", "calls"})
        if (e["args"].contains(k)) EXPECT_TRUE(e["args"][k].is_number()) << k << e.dump();
      if (e["args"].contains("Q"))
        for (const auto& [level, rw] : e["args"]["Q"].items())
          for (const auto& [dir, v] : rw.items()) EXPECT_TRUE((dir == "read" || dir == "write") && v.is_number()) << e.dump();
    } else if (ph == "M") {
      const std::string n = e["name"];
      if (n == "thread_sort_index") EXPECT_TRUE(e["args"]["sort_index"].is_number_integer()) << e.dump();
      else EXPECT_TRUE((n == "process_name" || n == "thread_name") && e["args"]["name"].is_string()) << e.dump();
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
}

json load_json(const fs::path& p) { return json::parse(read_text(p)); }

// The "X" events of region instances (tid 0 is the process's track), by tid.
std::map<int, std::vector<json>> instance_events(const json& t) {
  std::map<int, std::vector<json>> out;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X" && e["tid"] != 0) out[e["tid"].get<int>()].push_back(e);
  return out;
}

// On one thread, events either nest or follow each other: an open event ends at or after the
// end of every event that starts inside it. Returns the depth of each event.
std::vector<int> nesting(std::vector<json>& list) {
  std::sort(list.begin(), list.end(), [](const json& a, const json& b) {
    return std::pair(a["ts"].get<double>(), -a["dur"].get<double>()) < std::pair(b["ts"].get<double>(), -b["dur"].get<double>());
  });
  std::vector<double> open_ends;
  std::vector<int> depth;
  for (const auto& e : list) {
    const double ts = e["ts"], end = ts + e["dur"].get<double>();
    while (!open_ends.empty() && open_ends.back() <= ts) open_ends.pop_back();
    if (!open_ends.empty()) EXPECT_LE(end, open_ends.back() + 1e-6) << "overlaps its enclosing event: " << e.dump();
    depth.push_back(int(open_ends.size()));
    open_ends.push_back(end);
  }
  return depth;
}

// Four threads (the main one and three pthreads) call outer() K times, and outer() calls inner()
// twice: 4K outer and 8K inner instances, each an "X" event on its own thread, inner nested in
// outer; the result's instances are the same (tids, names), none left out.
TEST(Trace, OneEventPerInstanceOnItsThreadNestedAsTheCalls) {
  constexpr int k = 4;
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "time", "--region", "outer", "--region", "inner", "--",
                        fixture("run_trace_threads"), std::to_string(k)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json doc = load_result(r);
  EXPECT_EQ(doc["instances_per_thread"], 256);
  std::set<int> result_tids;
  for (const char* name : {"outer", "inner"}) {
    const json reg = region(doc, name);
    EXPECT_EQ(reg["instances_left_out"], 0);
    EXPECT_EQ(reg["instances"].size(), size_t(calls(reg)));
    for (const auto& x : reg["instances"]) result_tids.insert(x["tid"].get<int>());
  }
  EXPECT_EQ(result_tids.size(), 4u);

  auto t = sb.roofprof({"report", "--no-plot", "--trace", "trace.json", "roofprof.json"});
  ASSERT_EQ(t.exit_code(), 0) << t.diag();
  const json trace = load_json(sb.path("trace.json"));
  expect_chrome_trace_schema(trace);
  auto by_tid = instance_events(trace);
  std::set<int> trace_tids;
  for (auto& [tid, list] : by_tid) {
    trace_tids.insert(tid);
    std::map<std::string, int> names;
    for (const auto& e : list) names[e["name"].get<std::string>()] += 1;
    EXPECT_EQ(names, (std::map<std::string, int>{{"inner", 2 * k}, {"outer", k}})) << "tid " << tid;
    const auto depth = nesting(list);
    for (size_t i = 0; i < list.size(); ++i) {
      EXPECT_EQ(depth[i], list[i]["name"] == "outer" ? 0 : 1) << list[i].dump();
      EXPECT_EQ(list[i]["pid"], list[0]["pid"]);
      EXPECT_EQ(list[i]["args"]["calls"], 1);
      EXPECT_FALSE(list[i]["args"].contains("W")) << "--backend time measures no W";
      EXPECT_GT(list[i]["args"]["T"].get<double>(), 0);
    }
  }
  EXPECT_EQ(trace_tids, result_tids);
  std::set<std::pair<int, std::string>> named;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") named.insert({e["tid"].get<int>(), e["args"]["name"]});
  for (int tid : result_tids) EXPECT_TRUE(std::any_of(named.begin(), named.end(), [&](auto& n) { return n.first == tid; }));
  // The process's track: every instance is in one of its intervals, which nest as the threads' do.
  std::vector<json> process;
  int64_t process_calls = 0;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["tid"] == 0) process.push_back(e), process_calls += e["args"]["calls"].get<int64_t>();
  EXPECT_EQ(process_calls, 4 * k + 8 * k);
  nesting(process);
}

// Under emulation each instance has its exact W: inner() 2 * 1000 flops, and P = W / T.
TEST(Trace, EmulatedInstancesHaveTheirExactWork) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "emul", "--region", "outer", "--region", "inner", "--",
                        fixture("run_trace_threads"), "2"},
                       {.timeout = 120s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  auto t = sb.roofprof({"report", "--no-plot", "--trace", "-", "roofprof.json"});
  ASSERT_EQ(t.exit_code(), 0) << t.diag();
  const json trace = json::parse(t.out);  // stdout is the trace alone
  expect_chrome_trace_schema(trace);
  int inner = 0;
  for (auto& [tid, list] : instance_events(trace))
    for (const auto& e : list) {
      if (e["name"] != "inner") continue;
      ++inner;
      EXPECT_EQ(e["args"]["W"], 2000.0) << e.dump();
      EXPECT_DOUBLE_EQ(e["args"]["P"].get<double>(), 2000.0 / e["args"]["T"].get<double>());
      EXPECT_TRUE(e["args"]["Q"]["L1"]["read"].is_number()) << e.dump();
    }
  EXPECT_EQ(inner, 4 * 2 * 2);
}

// The first 256 instances of a region on each thread are kept: 8 threads x 300 calls leave
// 8 x 44 out, which the result, the trace and the command say.
TEST(Trace, InstancesBeyondTheBoundAreCountedNotKept) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "time", "--region", "thread_work", "--", fixture("run_threads"), "300"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json reg = region(load_result(r), "thread_work");
  EXPECT_EQ(reg["instances"].size(), 8u * 256);
  EXPECT_EQ(reg["instances_left_out"], 8 * 44);
  auto t = sb.roofprof({"report", "--no-plot", "--trace", "trace.json", "roofprof.json"});
  ASSERT_EQ(t.exit_code(), 0) << t.diag();
  EXPECT_NE(t.err.find("trace.json: 352 instances left out (the first 256 of each region on each thread"),
            std::string::npos) << t.diag();
  const json trace = load_json(sb.path("trace.json"));
  EXPECT_EQ(trace["otherData"]["instances_left_out"]["thread_work"], 352);
  size_t events = 0;
  for (auto& [tid, list] : instance_events(trace)) events += list.size();
  EXPECT_EQ(events, 8u * 256);
}

// --repeat 2: each run's instances, timed from that run's first one, in its own process.
TEST(Trace, EachRunOfRepeatIsItsOwnProcess) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "time", "--repeat", "2", "--region", "outer", "--",
                        fixture("run_trace_threads"), "1"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  std::map<int, std::set<int>> pids;   // run -> pids
  std::map<int, int> instances;         // run -> count
  std::map<int, double> first;          // run -> earliest start_s
  const json outer = region(load_result(r), "outer");
  for (const auto& x : outer["instances"]) {
    const int run = x["run"];
    pids[run].insert(x["pid"].get<int>());
    instances[run] += 1;
    first[run] = first.count(run) ? std::min(first[run], x["start_s"].get<double>()) : x["start_s"].get<double>();
  }
  EXPECT_EQ(instances, (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_EQ(first, (std::map<int, double>{{0, 0.0}, {1, 0.0}}));
  ASSERT_EQ(pids[0].size(), 1u);
  ASSERT_EQ(pids[1].size(), 1u);
  EXPECT_NE(*pids[0].begin(), *pids[1].begin());
  auto t = sb.roofprof({"report", "--no-plot", "--trace", "trace.json", "roofprof.json"});
  ASSERT_EQ(t.exit_code(), 0) << t.diag();
  const json trace = load_json(sb.path("trace.json"));
  expect_chrome_trace_schema(trace);
  std::set<std::string> processes;
  for (const auto& e : trace["traceEvents"])
    if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_NE(processes.begin()->find(", run 0; roofprof.json)"), std::string::npos) << *processes.begin();
  EXPECT_NE(processes.rbegin()->find(", run 1; roofprof.json)"), std::string::npos) << *processes.rbegin();
}

// A result written before instances were recorded: one line, exit status 2, nothing written.
TEST(Trace, AnOlderResultWithoutInstancesIsRefused) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "time", "--region", "outer", "--", fixture("run_trace_threads"), "1"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  doc.erase("instances_per_thread");
  for (auto& reg : doc["regions"]) reg.erase("instances"), reg.erase("instances_left_out");
  write_text(sb.path("old.json"), doc.dump());
  auto t = sb.roofprof({"report", "--no-plot", "--trace", "trace.json", "old.json"});
  EXPECT_EQ(t.exit_code(), 2) << t.diag();
  EXPECT_EQ(lines(t.err).size(), 1u) << t.diag();
  EXPECT_NE(t.err.find("old.json: the result has no region instances"), std::string::npos) << t.diag();
  EXPECT_FALSE(fs::exists(sb.path("trace.json")));
  auto plain = sb.roofprof({"report", "--no-plot", "old.json"});
  EXPECT_EQ(plain.exit_code(), 0) << "older files still read: " << plain.diag();
}

// Hatchet's literal format of run --group-by caller:2 (callers.c: work from phase_a 3 times and
// phase_b 5 times, each phase from main): roots main's call sites, then the phase, then work.
TEST(Hatchet, CallPathsAsALiteralTree) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "time", "--group-by", "caller:2", "-r", "work", "--",
                        fixture("run_callers"), "1000"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  auto h = sb.roofprof({"report", "--no-plot", "--hatchet", "tree.json", "roofprof.json"});
  ASSERT_EQ(h.exit_code(), 0) << h.diag();
  const json roots = load_json(sb.path("tree.json"));
  ASSERT_TRUE(roots.is_array());
  std::map<std::string, int64_t> leaves;  // "root/phase" -> calls of work under it
  std::function<void(const json&, const std::string&)> walk = [&](const json& n, const std::string& path) {
    ASSERT_TRUE(n["frame"]["name"].is_string());
    EXPECT_EQ(n["frame"]["type"], "function");
    for (const char* k : {"W", "Q", "T", "P", "I", "calls"}) EXPECT_TRUE(n["metrics"].contains(k)) << k;
    ASSERT_TRUE(n["children"].is_array());
    if (n["children"].empty()) {
      EXPECT_EQ(n["frame"]["name"], "work");
      leaves[path] += n["metrics"]["calls"].get<int64_t>();
      return;
    }
    double t = 0;
    int64_t c = 0;
    for (const auto& child : n["children"]) {
      t += child["metrics"]["T"].get<double>(), c += child["metrics"]["calls"].get<int64_t>();
      walk(child, path + "/" + n["frame"]["name"].get<std::string>());
    }
    EXPECT_EQ(c, n["metrics"]["calls"].get<int64_t>()) << n.dump();
    EXPECT_NEAR(t, n["metrics"]["T"].get<double>(), 1e-12) << n.dump();
  };
  for (const auto& root : roots) walk(root, "");
  auto at = [](const char* marker) { return line_of("tests/fixtures/run/callers.c", marker); };
  EXPECT_EQ(leaves, (std::map<std::string, int64_t>{
                        {fmt::format("/main (callers.c:{})/phase_a (callers.c:{})", at("MAIN_A"), at("CALL_A")), 3},
                        {fmt::format("/main (callers.c:{})/phase_b (callers.c:{})", at("MAIN_B"), at("CALL_B")), 5}}));
}

}  // namespace
}  // namespace it
