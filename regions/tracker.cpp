#include "regions/tracker.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace roofprof::regions {

const char* to_string(CloseReason r) {
  switch (r) {
    case CloseReason::Return: return "return";
    case CloseReason::SpanStop: return "span_stop";
    case CloseReason::Longjmp: return "longjmp";
    case CloseReason::Exception: return "exception";
    case CloseReason::Unwound: return "unwound";
    case CloseReason::ThreadExit: return "thread_exit";
    case CloseReason::ProcessExit: return "process_exit";
    case CloseReason::Crash: return "crash";
    case CloseReason::Detach: return "detach";
  }
  return "unknown";
}

CloseReason close_reason(uint64_t code) { return code < RP_REASONS ? CloseReason(code) : CloseReason::Unwound; }

namespace {

template <class Opens>
bool has_region(const Opens& v, RegionId region) {
  return std::any_of(v.begin(), v.end(), [&](const auto& o) { return o.region == region; });
}

}  // namespace

bool Tracker::is_open(RegionId region, int pid, Tid tid) const {
  auto it = open_.find({pid, tid});
  return it != open_.end() && has_region(it->second, region);
}

bool Tracker::in_function(int pid, Tid tid) const {
  auto it = open_.find({pid, tid});
  if (it == open_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [](const Open& o) { return !o.is_span; });
}

std::vector<Tracker::Open>* Tracker::find(const Key& key) {
  if (last_ && last_key_ == key) return last_;
  auto it = open_.find(key);
  if (it == open_.end()) return nullptr;
  last_key_ = key;
  return last_ = &it->second;
}

std::vector<Tracker::Open>& Tracker::at(const Key& key) {
  if (last_ && last_key_ == key) return *last_;
  last_key_ = key;
  return *(last_ = &open_[key]);  // references to elements survive a rehash
}

void Tracker::erase(Threads::iterator it) {
  if (last_ == &it->second) last_ = nullptr;
  open_.erase(it);
}

CountSource* Tracker::source_of(const Boundary& b) const {
  CountSource* s = b.counts ? b.counts : counts_;
  if (!s) throw std::logic_error("regions::Tracker: a boundary without a count source");
  return s;
}

const ProbeTime& Tracker::probe_of(const Boundary& b) {
  ProbeTime& p = probe_[{b.pid, b.tid}];
  p += b.probe;
  return p;
}

size_t Tracker::open_count() const {
  size_t n = 0;
  for (const auto& [k, v] : open_) n += v.size();
  return n;
}

bool Tracker::open(RegionId region, bool is_span, const Boundary& b, std::string group, bool resumed) {
  const ProbeTime probe = probe_of(b);
  std::vector<Open>& v = at({b.pid, b.tid});
  if (has_region(v, region)) return false;  // recursion / re-reached START: counted once
  CountSource* src = source_of(b);
  const auto depth = uint32_t(v.size());
  v.emplace_back(Open{region, is_span, b.sp, b.time_ns, src->read_thread(b.pid, b.tid), src, std::move(group), depth,
                      false, resumed});
  v.back().probe = probe;
  v.back().id = next_id_++;
  v.back().parent = v.size() > 1 ? v[v.size() - 2].id : 0;
  if (scope_ == Scope::Process) share_open(v.back(), b.pid, b.tid, src);
  return true;
}

void Tracker::share_open(Open& o, int pid, Tid tid, CountSource* src) {
  Shared& s = shared_[{pid, o.region}];
  if (s.open++ == 0) {
    s.begin = src->read_process(pid, tid, o.begin);
    s.source = src;
    s.own.assign(o.begin.values.size(), 0.0);
    o.anchor = true;
  }
}

void Tracker::share_close(Instance&& inst, bool anchor, CountSource* source, ProcessRead& process) {
  auto it = shared_.find({inst.pid, inst.region});
  if (it == shared_.end()) return sink_(std::move(inst));  // opened before the scope was shared: cannot be
  Shared& s = it->second;
  if (s.own.size() < inst.counts.size()) s.own.resize(inst.counts.size(), 0.0);
  for (size_t i = 0; i < inst.counts.size(); ++i) {
    if (!std::isnan(inst.counts[i])) {
      s.own[i] += inst.counts[i];
    } else if (!anchor) {  // in the process's delta, which the first instance gets: not lost
      inst.counts[i] = 0;
      inst.own_unknown = true;
    }
  }
  if (anchor) {
    s.held.push_back(std::move(inst));
  } else {
    inst.group_times.clear();  // its thread's times are in the process's, which the first instance gets
    sink_(std::move(inst));
  }
  if (--s.open > 0) return;
  // The region is closed in the whole process: the work of threads without an instance of it
  // (the process's delta less the instances' own) goes to the anchor.
  Shared done = std::move(s);
  shared_.erase(it);
  CounterDelta all = counter_delta(done.begin, process.get());
  if (source != done.source)
    std::fill(all.values.begin(), all.values.end(), std::numeric_limits<double>::quiet_NaN());
  for (Instance& a : done.held) {
    if (a.counts.size() < all.values.size()) a.counts.resize(all.values.size(), 0.0);
    a.others.assign(all.values.size(), 0.0);
    for (size_t i = 0; i < all.values.size(); ++i) {
      a.own_unknown = a.own_unknown || std::isnan(a.counts[i]);
      const double own = std::isnan(a.counts[i]) ? 0.0 : a.counts[i];
      a.others[i] = all.values[i] - (i < done.own.size() ? done.own[i] : 0.0);
      a.counts[i] = own + a.others[i];
    }
    a.multiplexed = a.multiplexed || all.multiplexed;
    a.group_times = all.group_times;
    sink_(std::move(a));
  }
}

bool Tracker::enter(RegionId region, const Boundary& b, std::string group) {
  return open(region, false, b, std::move(group));
}
bool Tracker::span_start(RegionId region, const Boundary& b) { return open(region, true, b); }
bool Tracker::span_resume(RegionId region, const Boundary& b) { return open(region, true, b, {}, true); }

void Tracker::close(const Key& key, Open&& o, int64_t end_ns, CountSource* source, const CounterValues& end,
                    CloseReason why, ProcessRead& process) {
  Instance inst;
  inst.region = o.region;
  inst.pid = key.first;
  inst.tid = key.second;
  inst.begin_ns = o.begin_ns;
  inst.end_ns = end_ns;
  // Raw counts and enabled/running times are subtracted first, then scaled (counter_delta).
  CounterDelta d = counter_delta(o.begin, end);
  inst.multiplexed = d.multiplexed;
  inst.counts = std::move(d.values);
  inst.group_times = std::move(d.group_times);
  if (source != o.source)  // two mechanisms' counters: no delta between them was measured
    std::fill(inst.counts.begin(), inst.counts.end(), std::numeric_limits<double>::quiet_NaN());
  inst.reason = why;
  inst.group = std::move(o.group);
  inst.depth = o.depth;
  inst.id = o.id;
  inst.parent = o.parent;
  auto p = probe_.find(key);
  if (p != probe_.end()) inst.probe = p->second - o.probe;
  inst.resumed = o.resumed;
  if (scope_ == Scope::Process) return share_close(std::move(inst), o.anchor, source, process);
  sink_(std::move(inst));
}

bool Tracker::span_stop(RegionId region, const Boundary& b) {
  probe_of(b);
  const Key key{b.pid, b.tid};
  std::vector<Open>* v = find(key);
  if (!v) return false;
  auto pos = std::find_if(v->begin(), v->end(), [&](const Open& o) { return o.is_span && o.region == region; });
  if (pos == v->end()) return false;
  Open o = std::move(*pos);
  v->erase(pos);
  CountSource* src = source_of(b);
  const CounterValues end = src->read_thread(b.pid, b.tid);
  ProcessRead process{src, b.pid, b.tid, end};
  close(key, std::move(o), b.time_ns, src, end, CloseReason::SpanStop, process);
  return true;
}

bool Tracker::stack_at(const Boundary& b, CloseReason why) {
  probe_of(b);
  const Key key{b.pid, b.tid};
  std::vector<Open>* v = find(key);
  if (!v) return false;
  bool any = std::any_of(v->begin(), v->end(), [&](const Open& o) { return !o.is_span && o.entry_sp < b.sp; });
  if (!any) return false;
  CountSource* src = source_of(b);
  CounterValues end = src->read_thread(b.pid, b.tid);
  ProcessRead process{src, b.pid, b.tid, end};
  // Close innermost first so instances come out in the order a real unwind would close them.
  for (size_t i = v->size(); i-- > 0;) {
    if (!(*v)[i].is_span && (*v)[i].entry_sp < b.sp) {
      Open o = std::move((*v)[i]);
      v->erase(v->begin() + long(i));
      close(key, std::move(o), b.time_ns, src, end, why, process);
    }
  }
  return true;
}

bool Tracker::thread_exit(const Boundary& b, CloseReason why) {
  probe_of(b);
  const Key key{b.pid, b.tid};
  auto it = open_.find(key);
  if (it == open_.end()) return probe_.erase(key), false;
  std::vector<Open> v = std::move(it->second);
  erase(it);  // the thread is gone
  if (v.empty()) return probe_.erase(key), false;
  CountSource* src = source_of(b);
  CounterValues end = src->read_thread(b.pid, b.tid);
  ProcessRead process{src, b.pid, b.tid, end};
  for (size_t i = v.size(); i-- > 0;) close(key, std::move(v[i]), b.time_ns, src, end, why, process);
  probe_.erase(key);
  return true;
}

bool Tracker::process_exit(int pid, int64_t time_ns, CloseReason why, CountSource* counts) {
  std::vector<Tid> tids;  // closed thread by thread in tid order, whatever the table's order
  for (const auto& [key, v] : open_)
    if (key.first == pid) tids.push_back(key.second);
  std::sort(tids.begin(), tids.end());
  bool any = false;
  for (Tid tid : tids) any |= thread_exit(Boundary{pid, tid, 0, time_ns, counts}, why);
  return any;
}

}  // namespace roofprof::regions
