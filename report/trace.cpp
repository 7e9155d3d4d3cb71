#include "report/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/error.hpp"
#include "common/run_words.hpp"

namespace roofprof::report {
namespace {

using nlohmann::ordered_json;

constexpr double kUs = 1e6;  // trace event times are microseconds
// The track of the intervals a region was open in a process (scope=process): no kernel tid is 0.
constexpr int kProcessTrack = 0;

// W, Q, T, P of an instance or interval; unknown quantities are left out.
ordered_json quantities(const std::optional<double>& w, const std::map<std::string, result::Bytes>& q,
                        const std::optional<double>& t) {
  ordered_json args = ordered_json::object();
  if (w) args["W"] = *w;
  ordered_json levels = ordered_json::object();
  for (const auto& [level, b] : q) {
    ordered_json rw = ordered_json::object();
    if (b.read) rw["read"] = *b.read;
    if (b.write) rw["write"] = *b.write;
    if (!rw.empty()) levels[level] = rw;
  }
  if (!levels.empty()) args["Q"] = levels;
  if (t) args["T"] = *t;
  if (w && t && *t > 0) args["P"] = *w / *t;
  return args;
}

ordered_json complete(const std::string& name, const std::string& cat, int pid, int tid, double start_s, double end_s,
                      ordered_json args) {
  return {{"name", name}, {"cat", cat},        {"ph", "X"},   {"ts", start_s * kUs},
          {"dur", (end_s - start_s) * kUs},    {"pid", pid},  {"tid", tid},
          {"args", std::move(args)}};
}

ordered_json metadata(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

ordered_json instance_event(const result::Region& r, const result::Instance& x) {
  ordered_json args = quantities(x.flops, x.bytes, x.time_s);
  args["calls"] = x.resumed ? 0 : 1;
  if (x.flops_other_threads) args["W_other_threads"] = *x.flops_other_threads;
  args["closed_by"] = x.closed_by;
  args["depth"] = x.depth;
  args["run"] = x.run;
  return complete(r.name, r.kind, x.pid, x.tid, x.start_s, x.end_s, std::move(args));
}

// The end of the last instance kept on a thread that reached the bound: instances of other
// threads after it may be missing, so process intervals are cut there.
std::map<std::pair<int, int>, double> cut_times(const result::Region& r, uint64_t bound) {
  std::map<std::tuple<int, int, int>, std::pair<uint64_t, double>> threads;  // (run, pid, tid) -> kept, last end
  for (const auto& x : r.instances) {
    auto& t = threads[{x.run, x.pid, x.tid}];
    t.first += 1, t.second = std::max(t.second, x.end_s);
  }
  std::map<std::pair<int, int>, double> out;  // (run, pid) -> cut
  if (r.instances_left_out == 0) return out;
  for (const auto& [key, t] : threads) {
    if (t.first < bound) continue;
    auto [it, added] = out.emplace(std::pair{std::get<0>(key), std::get<1>(key)}, t.second);
    if (!added) it->second = std::min(it->second, t.second);
  }
  return out;
}

// Scope=process: the intervals a region was open in a process (overlapping instances of its
// threads joined), with the work of every thread in them: the instances' own and the others'.
void process_intervals(const result::Region& r, uint64_t bound, ordered_json& events, std::set<std::pair<int, int>>& tracks) {
  std::map<std::pair<int, int>, std::vector<const result::Instance*>> by_process;  // (run, pid)
  for (const auto& x : r.instances) by_process[{x.run, x.pid}].push_back(&x);
  const auto cuts = cut_times(r, bound);
  for (auto& [key, list] : by_process) {
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->start_s < b->start_s; });
    const auto cut = cuts.find(key);
    for (size_t i = 0; i < list.size();) {
      double start = list[i]->start_s, end = list[i]->end_s;
      std::optional<double> w = 0.0;
      std::set<int> tids;
      uint64_t calls = 0;
      size_t j = i;
      for (; j < list.size() && (j == i || list[j]->start_s < end); ++j) {
        const result::Instance& x = *list[j];
        end = std::max(end, x.end_s);
        tids.insert(x.tid);
        calls += x.resumed ? 0 : 1;
        if (!x.flops) w.reset();
        if (w) *w += *x.flops + x.flops_other_threads.value_or(0.0);
      }
      i = j;
      if (cut != cuts.end() && end > cut->second) break;  // instances of it may be left out
      ordered_json args = quantities(w, {}, end - start);
      args["calls"] = calls;
      args["threads"] = tids.size();
      events.push_back(complete(r.name, r.kind + " (process)", key.second, kProcessTrack, start, end, std::move(args)));
      tracks.insert(key);
    }
  }
}

std::string command_of(const result::Run& run) {
  std::string out;
  for (const auto& a : run.command) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

uint64_t instances_left_out(const std::vector<Input>& inputs) {
  uint64_t n = 0;
  for (const auto& in : inputs)
    for (const auto& r : in.run.regions) n += r.instances_left_out;
  return n;
}

ordered_json chrome_trace(const std::vector<Input>& inputs) {
  for (const auto& in : inputs)
    if (!in.run.instances_per_thread)
      throw UserError(in.label + ": the result has no region instances (written before roofprof recorded them, "
                                 "by a survey, or by an MPI rank's emulated-only run): run roofprof run again for --trace");
  ordered_json events = ordered_json::array();
  ordered_json left_out = ordered_json::object();
  std::map<int, std::string> processes;                 // pid -> name
  std::map<std::pair<int, int>, std::string> threads;   // (pid, tid) -> name
  for (const auto& in : inputs) {
    const result::Run& run = in.run;
    std::set<std::pair<int, int>> process_tracks;
    for (const auto& r : run.regions) {
      for (const auto& x : r.instances) {
        events.push_back(instance_event(r, x));
        processes.emplace(x.pid, fmt::format("{} (pid {}, run {}; {})", command_of(run), x.pid, x.run, in.label));
        threads.emplace(std::pair{x.pid, x.tid}, fmt::format("thread {}.{} (tid {})", x.process, x.thread, x.tid));
      }
      if (run.scope == run_words::kProcess) process_intervals(r, *run.instances_per_thread, events, process_tracks);
      if (r.instances_left_out) left_out[r.name] = left_out.value(r.name, uint64_t(0)) + r.instances_left_out;
    }
    for (const auto& [run_number, pid] : process_tracks)
      threads.emplace(std::pair{pid, kProcessTrack}, "process: regions open on any thread");
  }
  ordered_json meta = ordered_json::array();
  for (const auto& [pid, name] : processes) meta.push_back(metadata("process_name", pid, 0, name));
  for (const auto& [key, name] : threads) {
    meta.push_back(metadata("thread_name", key.first, key.second, name));
    meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", key.first}, {"tid", key.second},
                    {"args", {{"sort_index", key.second == kProcessTrack ? -1 : key.second}}}});
  }
  // Per thread by start, the enclosing instance first where two start together.
  std::stable_sort(events.begin(), events.end(), [](const ordered_json& a, const ordered_json& b) {
    return std::tuple(a["pid"].get<int>(), a["tid"].get<int>(), a["ts"].get<double>(), -a["dur"].get<double>()) <
           std::tuple(b["pid"].get<int>(), b["tid"].get<int>(), b["ts"].get<double>(), -b["dur"].get<double>());
  });
  for (auto& e : events) meta.push_back(std::move(e));
  ordered_json other{{"tool", "roofprof"},
                     {"inputs", ordered_json::array()},
                     {"units", {{"ts", "us"}, {"W", "flops"}, {"Q", "bytes"}, {"T", "s"}, {"P", "flop/s"}}},
                     {"instances_per_thread", *inputs.front().run.instances_per_thread},
                     {"instances_left_out", left_out}};
  for (const auto& in : inputs) other["inputs"].push_back(in.label);
  return {{"traceEvents", std::move(meta)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(other)}};
}

}  // namespace roofprof::report
