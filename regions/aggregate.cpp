#include "regions/aggregate.hpp"

#include <algorithm>
#include <limits>

namespace roofprof::regions {

std::optional<Quantiles> quantiles(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  auto at = [&](double p) {
    double h = (double(v.size()) - 1) * p;
    size_t lo = size_t(h);
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
  };
  return Quantiles{v.front(), at(0.25), at(0.5), at(0.75), v.back()};
}

namespace {

void add_values(std::vector<double>& into, const std::vector<double>& v) {
  if (into.size() < v.size()) into.resize(v.size(), 0.0);
  for (size_t i = 0; i < v.size(); ++i) into[i] += v[i];
}

void add_part(ThreadPart& into, const ThreadPart& p) {
  into.calls += p.calls;
  into.time_s += p.time_s;
  add_values(into.own, p.own);
}

// The run's parts by (pid, tid), numbered as ThreadNumber says.
std::map<ThreadNumber, ThreadPart> numbered(const std::map<std::pair<int, Tid>, ThreadPart>& parts) {
  std::map<ThreadNumber, ThreadPart> out;
  int process = -1, thread = 0, last_pid = 0;
  for (const auto& [key, part] : parts) {  // ordered by pid, then tid
    if (process < 0 || key.first != last_pid) ++process, thread = 0, last_pid = key.first;
    out[{process, thread++}] = part;
  }
  return out;
}

// What compensation subtracts from an instance of `duration_s`: its probes' time, never more than
// the duration (a calibrated part can exceed what a short instance held), the parts in proportion.
ProbeTime subtracted(const ProbeTime& probe, double duration_s) {
  const double total = probe.total_ns();
  if (!(total > 0) || !(duration_s > 0)) return {};
  const double keep = std::min(1.0, duration_s * 1e9 / total);
  return {probe.measured_ns * keep, probe.calibrated_ns * keep};
}

}  // namespace

std::map<ThreadNumber, ThreadPart> Aggregate::thread_parts() const {
  std::map<ThreadNumber, ThreadPart> out = earlier_parts;
  for (const auto& [n, part] : numbered(run_parts)) add_part(out[n], part);
  return out;
}

std::map<KeptKey, KeptThread> Aggregate::kept() const {
  std::map<KeptKey, KeptThread> out = kept_earlier;
  for (const auto& [key, part] : run_parts)
    if (part.kept.instances > 0) out[{run, key.first, key.second}] = part.kept;
  return out;
}

namespace {

void keep(KeptThread& k, const Instance& inst, double time_s) {
  k.instances += 1;
  if (k.first.size() >= kKeptPerThread) return;
  k.first.push_back(KeptInstance{inst.begin_ns, inst.end_ns, time_s, inst.depth, inst.reason, inst.resumed,
                                 inst.multiplexed, inst.own_unknown, inst.counts, inst.others});
}

// The current run's kept instances of `a` go to its earlier runs'.
void archive_kept(Aggregate& a) {
  for (auto& [key, part] : a.run_parts)
    if (part.kept.instances > 0) a.kept_earlier[{a.run, key.first, key.second}] = std::move(part.kept);
}

}  // namespace

void Aggregator::add(const Instance& inst) {
  Last& l = last_;
  if (run_ < 0) run_ = 0;
  if (!l.aggregate || l.region != inst.region) {
    l = Last{inst.region, &regions_[inst.region]};
    if (l.aggregate->run_parts.empty()) l.aggregate->run = run_;
  }
  Aggregate& a = *l.aggregate;
  const double measured = double(inst.end_ns - inst.begin_ns) * 1e-9;
  const ProbeTime sub = subtracted(inst.probe, measured);
  const double d = measured - sub.total_ns() * 1e-9;
  ThreadPart& part = a.run_parts[{inst.pid, inst.tid}];
  if (!inst.resumed) {
    a.calls += 1;
    part.calls += 1;
    part.last_call = a.durations_s.size();
    a.durations_s.push_back(d);
  } else if (part.last_call < a.durations_s.size()) {
    a.durations_s[part.last_call] += d;
  }
  a.time_s += d;
  a.time_measured_s += measured;
  a.probe_subtracted += sub;
  add_values(a.counter_totals, inst.counts);
  a.multiplexed |= inst.multiplexed;
  add_group_times(a.group_times, inst.group_times);
  part.time_s += d;
  keep(part.kept, inst, d);
  if (part.own.size() < inst.counts.size()) part.own.resize(inst.counts.size(), 0.0);
  for (size_t i = 0; i < inst.counts.size(); ++i)
    part.own[i] += inst.own_unknown ? std::numeric_limits<double>::quiet_NaN()
                                    : inst.counts[i] - (i < inst.others.size() ? inst.others[i] : 0.0);
  add_values(a.others_totals, inst.others);
  if (inst.resumed && !is_abnormal(inst.reason)) {  // its call's close is counted already
    a.thread_ids.insert(inst.tid);
    a.pids.insert(inst.pid);
    return;
  }
  if (!l.closed || l.tid != inst.tid || l.pid != inst.pid || l.reason != inst.reason) {
    a.thread_ids.insert(inst.tid);
    a.pids.insert(inst.pid);
    l.closed = &a.closed_by[inst.reason];
    l.tid = inst.tid;
    l.pid = inst.pid;
    l.reason = inst.reason;
  }
  *l.closed += 1;
}

void Aggregator::next_run() {
  last_ = Last{};
  ++run_;
  for (auto& [id, a] : regions_) {
    archive_kept(a);
    a.threads_most = a.threads();
    a.thread_ids.clear();
    a.earlier_parts = a.thread_parts();
    a.run_parts.clear();
    a.run = run_;
  }
}

void Aggregator::merge(const Aggregator& other) {
  last_ = Last{};
  for (const auto& [id, o] : other.regions_) {
    Aggregate& a = regions_[id];
    a.calls += o.calls;
    a.time_s += o.time_s;
    a.time_measured_s += o.time_measured_s;
    a.probe_subtracted += o.probe_subtracted;
    a.durations_s.insert(a.durations_s.end(), o.durations_s.begin(), o.durations_s.end());
    add_values(a.counter_totals, o.counter_totals);
    a.multiplexed |= o.multiplexed;
    add_group_times(a.group_times, o.group_times);
    a.threads_most = std::max(a.threads(), o.threads());
    a.thread_ids.clear();
    a.pids.insert(o.pids.begin(), o.pids.end());
    for (const auto& [r, n] : o.closed_by) a.closed_by[r] += n;
    add_values(a.others_totals, o.others_totals);
    std::map<ThreadNumber, ThreadPart> parts = a.thread_parts();
    for (const auto& [n, part] : o.thread_parts()) add_part(parts[n], part);
    a.earlier_parts = std::move(parts);
    // Its runs follow this one's: numbered from the run after the last one here.
    archive_kept(a);
    int next = 0;
    for (const auto& [key, k] : a.kept_earlier) next = std::max(next, std::get<0>(key) + 1);
    for (auto& [key, k] : o.kept()) a.kept_earlier[{next + std::get<0>(key), std::get<1>(key), std::get<2>(key)}] = k;
    a.run_parts.clear();
  }
}

}  // namespace roofprof::regions
