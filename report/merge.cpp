// A quantity of a merged region is the sum over the files that have the region; it is unknown
// (null) when any of those files did not measure it, because a partial sum would look like a
// measurement of the whole.
#include "report/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/run_words.hpp"
#include "report/job.hpp"
#include "result/quantiles.hpp"

namespace roofprof::report {
namespace {

using result::Bytes;
using result::Group;
using result::Region;
using result::Stats;

void add_to(std::optional<double>& sum, const std::optional<double>& v) {
  if (sum && v) *sum += *v;
  else sum.reset();
}

// Counters: an event every part counted is summed; one a part lacks (or did not count) is null.
void add_counters(std::map<std::string, std::optional<double>>& sum,
                  const std::map<std::string, std::optional<double>>& part) {
  for (auto& [event, value] : sum) {
    auto it = part.find(event);
    add_to(value, it == part.end() ? std::nullopt : it->second);
  }
  for (const auto& [event, value] : part)
    if (!sum.count(event)) sum[event] = std::nullopt;  // earlier parts did not have it
}

void add_bytes(std::map<std::string, Bytes>& sum, const std::map<std::string, Bytes>& part) {
  for (auto& [level, b] : sum) {
    auto it = part.find(level);
    add_to(b.read, it == part.end() ? std::nullopt : it->second.read);
    add_to(b.write, it == part.end() ? std::nullopt : it->second.write);
  }
  for (const auto& [level, b] : part)
    if (!sum.count(level)) sum[level] = Bytes{};
}

// Per-call statistics of the parts, weighted by calls.
struct StatsParts {
  std::vector<std::pair<Stats, double>> parts;
  void add(const std::optional<Stats>& s, uint64_t calls) {
    if (s && calls) parts.emplace_back(*s, double(calls));
  }
  bool approximate() const { return parts.size() > 1; }
};

std::string joined_source(const std::string& a, const std::string& b) {
  if (a == b) return a;
  return a + "+" + b;
}

struct RegionSum {
  Region region;
  StatsParts stats;
  bool classes_known = true;
  std::map<std::string, size_t> group_index;
  std::vector<StatsParts> group_stats;
};

void add_group(RegionSum& sum, const Group& g) {
  auto [it, fresh] = sum.group_index.try_emplace(g.key, sum.region.groups.size());
  if (fresh) {
    sum.region.groups.push_back(g);
    sum.group_stats.emplace_back();
    sum.group_stats.back().add(g.time_per_call_s, g.calls);
    return;
  }
  Group& s = sum.region.groups[it->second];
  s.calls += g.calls;
  s.time_s += g.time_s;
  add_counters(s.counters, g.counters);
  add_to(s.flops, g.flops);
  add_bytes(s.bytes, g.bytes);
  add_to(s.expected_work, g.expected_work);
  sum.group_stats[it->second].add(g.time_per_call_s, g.calls);
}

void add_region(RegionSum& sum, const Region& r) {
  Region& s = sum.region;
  s.calls += r.calls;
  add_to(s.time_s, r.time_s);
  add_counters(s.counters, r.counters);
  s.counters_multiplexed = s.counters_multiplexed || r.counters_multiplexed;
  s.threads += r.threads;
  for (const auto& [reason, n] : r.closed_by) s.closed_by[reason] += n;
  add_to(s.flops, r.flops);
  if (r.flops_by_class.empty()) sum.classes_known = false;
  for (const auto& [c, v] : r.flops_by_class) s.flops_by_class[c] += v;
  add_bytes(s.bytes, r.bytes);
  add_to(s.instructions, r.instructions);
  if (r.probe_cost) *(s.probe_cost ? s.probe_cost : s.probe_cost.emplace()) += *r.probe_cost;
  if (r.compensation) *(s.compensation ? s.compensation : s.compensation.emplace()) += *r.compensation;
  for (const auto& site : r.locations)
    if (std::find(s.locations.begin(), s.locations.end(), site) == s.locations.end())
      s.locations.push_back(site);
  for (const auto& why : r.calls_approximate)
    if (std::find(s.calls_approximate.begin(), s.calls_approximate.end(), why) == s.calls_approximate.end())
      s.calls_approximate.push_back(why);
  for (const auto& [q, backend] : r.sources)
    s.sources[q] = s.sources.count(q) ? joined_source(s.sources[q], backend) : backend;
  sum.stats.add(r.time_per_call_s, r.calls);
  for (const auto& g : r.groups) add_group(sum, g);
}

template <class F>
bool all_same(const std::vector<Input>& inputs, F field) {
  for (const auto& in : inputs)
    if (!(field(in.run) == field(inputs.front().run))) return false;
  return true;
}

result::Run merged_header(const std::vector<Input>& inputs) {
  result::Run run = inputs.front().run;
  run.regions.clear();
  run.warnings.clear();
  run.wall_time_s = 0;
  run.repeat = 0;
  for (const auto& in : inputs) {
    add_to(run.wall_time_s, in.run.wall_time_s);
    run.repeat += in.run.repeat;
    run.complete = run.complete && in.run.complete;
    if (in.run.backend != run.backend) run.backend = run_words::kMixed;
    if (in.run.scope != run.scope) run.scope = run_words::kMixed;
    if (in.run.command != run.command) run.command = {};
    if (in.run.exit_status != run.exit_status) run.exit_status = std::nullopt;
    if (in.run.term_signal != run.term_signal) run.term_signal = std::nullopt;
    for (const auto& e : in.run.events)
      if (std::find(run.events.begin(), run.events.end(), e) == run.events.end())
        run.events.push_back(e);
    for (const auto& w : in.run.warnings) run.warnings.push_back(in.label + ": " + w);
  }
  return run;
}

}  // namespace

std::string subject_key(const std::string& region, const std::string& group) {
  return group.empty() ? region : region + '\x1f' + group;
}

Merged merge(const std::vector<Input>& inputs) {
  Merged out;
  for (const auto& in : inputs) out.inputs.push_back(&in);
  if (inputs.empty()) return out;
  if (inputs.size() == 1) {
    out.run = inputs.front().run;
    return out;
  }
  out.run = merged_header(inputs);
  std::vector<RegionSum> sums;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& in : inputs) {
    for (const auto& r : in.run.regions) {
      auto [it, fresh] = index.try_emplace({r.name, r.kind}, sums.size());
      if (fresh) {
        RegionSum s;
        s.region = r;
        s.region.groups.clear();
        s.region.calls = 0;
        s.region.time_s = 0;
        s.region.threads = 0;
        s.region.closed_by.clear();
        s.region.locations.clear();
        s.region.calls_approximate.clear();
        s.region.sources.clear();
        s.region.flops_by_class.clear();
        s.region.counters_multiplexed = false;
        s.region.probe_cost.reset();
        s.region.compensation.reset();
        s.region.per_thread.clear();  // threads of different runs are not one thread
        s.region.flops_other_threads.reset();
        s.region.balance.reset();
        for (auto& [e, v] : s.region.counters) v = 0.0;
        s.region.flops = 0.0;
        s.region.instructions = 0.0;
        for (auto& [level, b] : s.region.bytes) b = Bytes{0.0, 0.0};
        sums.push_back(std::move(s));
      }
      add_region(sums[it->second], r);
    }
  }
  size_t approx = 0;
  for (auto& s : sums) {
    if (!s.classes_known) s.region.flops_by_class.clear();
    s.region.time_per_call_s = result::mix(s.stats.parts);
    if (s.stats.approximate()) out.approximate_stats.insert(subject_key(s.region.name)), ++approx;
    for (size_t i = 0; i < s.region.groups.size(); ++i) {
      auto& g = s.region.groups[i];
      g.time_per_call_s = result::mix(s.group_stats[i].parts);
      if (s.group_stats[i].approximate())
        out.approximate_stats.insert(subject_key(s.region.name, g.key)), ++approx;
    }
    out.run.regions.push_back(std::move(s.region));
  }
  if (auto job = recognise_job(inputs)) {
    out.job = std::make_shared<JobSummary>(std::move(*job));
    out.notes = apply_job(*out.job, out.run);
    if (!all_same(inputs, [](const result::Run& r) { return r.host.cpu_model; }))
      out.notes.push_back("the ranks ran on different CPU models");
    return out;
  }
  std::string names;
  for (const auto& in : inputs) names += (names.empty() ? "" : ", ") + in.label;
  out.notes.push_back(fmt::format(
      "merged {} result files ({}): calls, times, counters, flops and bytes are summed per "
      "region{}",
      inputs.size(), names,
      approx ? "; per-call quartiles marked ~ are approximated from each file's quartiles" : ""));
  if (!all_same(inputs, [](const result::Run& r) { return r.host.cpu_model; }))
    out.notes.push_back("the files come from different CPU models; their sums mix machines");
  if (out.run.command.empty())
    out.notes.push_back("the files ran different commands");
  if (std::any_of(inputs.begin(), inputs.end(), [](const Input& in) { return bool(in.run.job); }))
    out.notes.push_back(
        "the files are not the ranks of one MPI job (several jobs, a rank twice, or files from "
        "outside a job), so they are merged as runs; report one job's files for the job view");
  return out;
}

}  // namespace roofprof::report
