#include "run/instances.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace roofprof::run {

namespace {

// (run, pid, tid) -> (process, thread), as regions::ThreadNumber numbers a region's threads in a run.
std::map<regions::KeptKey, regions::ThreadNumber> numbers_of(const std::map<regions::KeptKey, regions::KeptThread>& kept) {
  std::map<regions::KeptKey, regions::ThreadNumber> out;
  int run = -1, last_pid = 0, process = -1, thread = 0;
  for (const auto& [key, k] : kept) {  // ordered by run, pid, tid
    const auto& [r, pid, tid] = key;
    if (r != run) run = r, process = -1;
    if (process < 0 || pid != last_pid) ++process, thread = 0, last_pid = pid;
    out[key] = {process, thread++};
  }
  return out;
}

// Each run's first instance's start (ns), over every region.
std::map<int, int64_t> origins(const regions::Aggregator& agg) {
  std::map<int, int64_t> out;
  for (const auto& [id, a] : agg.regions())
    for (const auto& [key, k] : a.kept())
      for (const auto& x : k.first) {
        auto [it, added] = out.emplace(std::get<0>(key), x.begin_ns);
        if (!added) it->second = std::min(it->second, x.begin_ns);
      }
  return out;
}

}  // namespace

void record_instances(result::Run& res, const regions::Aggregator& agg, const InstanceQuantities& quantities) {
  res.instances_per_thread = regions::kKeptPerThread;
  const auto origin = origins(agg);
  for (const auto& [id, a] : agg.regions()) {
    if (id >= res.regions.size()) continue;
    result::Region& r = res.regions[id];
    const auto kept = a.kept();
    const auto numbers = numbers_of(kept);
    for (const auto& [key, k] : kept) {
      const auto& [run, pid, tid] = key;
      r.instances_left_out += k.left_out();
      for (const auto& x : k.first) {
        result::Instance one;
        one.run = run;
        one.process = numbers.at(key).first;
        one.thread = numbers.at(key).second;
        one.pid = pid;
        one.tid = tid;
        one.start_s = double(x.begin_ns - origin.at(run)) * 1e-9;
        one.end_s = double(x.end_ns - origin.at(run)) * 1e-9;
        one.time_s = x.time_s;
        one.depth = x.depth;
        one.closed_by = regions::to_string(x.reason);
        one.resumed = x.resumed;
        if (quantities) quantities(x, one);
        r.instances.push_back(std::move(one));
      }
    }
  }
}

bool match_emulated_instances(result::Region& r, const regions::Aggregate& emulated,
                              const InstanceQuantities& quantities) {
  // The emulated run's instances by thread number, and the native run's count on each.
  std::map<regions::ThreadNumber, const regions::KeptThread*> by_number;
  const auto kept = emulated.kept();
  const auto numbers = numbers_of(kept);
  for (const auto& [key, k] : kept) by_number[numbers.at(key)] = &k;
  std::map<std::tuple<int, int, int>, size_t> native;  // (run, process, thread) -> kept instances
  for (const auto& x : r.instances) native[{x.run, x.process, x.thread}] += 1;
  std::map<int, size_t> threads_in_run;
  for (const auto& [key, n] : native) {
    threads_in_run[std::get<0>(key)] += 1;
    auto it = by_number.find({std::get<1>(key), std::get<2>(key)});
    if (it == by_number.end() || it->second->first.size() != n) return false;
  }
  for (const auto& [run, n] : threads_in_run)
    if (n != by_number.size()) return false;
  std::map<std::tuple<int, int, int>, size_t> position;
  for (auto& x : r.instances) {
    const size_t i = position[{x.run, x.process, x.thread}]++;
    quantities(by_number.at({x.process, x.thread})->first.at(i), x);
  }
  return true;
}

}  // namespace roofprof::run
