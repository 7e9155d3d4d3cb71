#include "regions/tracker.hpp"

#include <algorithm>

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

bool Tracker::is_open(RegionId region, int pid, Tid tid) const {
  auto it = open_.find({pid, tid});
  if (it == open_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const Open& o) { return o.region == region; });
}

size_t Tracker::open_count() const {
  size_t n = 0;
  for (const auto& [k, v] : open_) n += v.size();
  return n;
}

bool Tracker::open(RegionId region, bool is_span, const Boundary& b, std::string group) {
  if (is_open(region, b.pid, b.tid)) return false;  // recursion / re-reached START: counted once
  open_[{b.pid, b.tid}].push_back(
      Open{region, is_span, b.sp, b.time_ns, counts_.read(b.pid, b.tid), std::move(group)});
  return true;
}

bool Tracker::enter(RegionId region, const Boundary& b, std::string group) {
  return open(region, false, b, std::move(group));
}
bool Tracker::span_start(RegionId region, const Boundary& b) { return open(region, true, b); }

void Tracker::close(const Key& key, Open&& o, int64_t end_ns, const CounterValues& end, CloseReason why) {
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
  inst.reason = why;
  inst.group = std::move(o.group);
  sink_(std::move(inst));
}

bool Tracker::span_stop(RegionId region, const Boundary& b) {
  auto it = open_.find({b.pid, b.tid});
  if (it == open_.end()) return false;
  auto& v = it->second;
  auto pos = std::find_if(v.begin(), v.end(), [&](const Open& o) { return o.is_span && o.region == region; });
  if (pos == v.end()) return false;
  Open o = std::move(*pos);
  v.erase(pos);
  close(it->first, std::move(o), b.time_ns, counts_.read(b.pid, b.tid), CloseReason::SpanStop);
  if (v.empty()) open_.erase(it);
  return true;
}

bool Tracker::stack_at(const Boundary& b, CloseReason why) {
  auto it = open_.find({b.pid, b.tid});
  if (it == open_.end()) return false;
  auto& v = it->second;
  bool any = std::any_of(v.begin(), v.end(), [&](const Open& o) { return !o.is_span && o.entry_sp < b.sp; });
  if (!any) return false;
  CounterValues end = counts_.read(b.pid, b.tid);
  // Close innermost first so instances come out in the order a real unwind would close them.
  for (size_t i = v.size(); i-- > 0;) {
    if (!v[i].is_span && v[i].entry_sp < b.sp) {
      Open o = std::move(v[i]);
      v.erase(v.begin() + long(i));
      close(it->first, std::move(o), b.time_ns, end, why);
    }
  }
  if (v.empty()) open_.erase(it);
  return true;
}

bool Tracker::thread_exit(const Boundary& b, CloseReason why) {
  auto it = open_.find({b.pid, b.tid});
  if (it == open_.end()) return false;
  CounterValues end = counts_.read(b.pid, b.tid);
  auto v = std::move(it->second);
  Key key = it->first;
  open_.erase(it);
  for (size_t i = v.size(); i-- > 0;) close(key, std::move(v[i]), b.time_ns, end, why);
  return true;
}

bool Tracker::process_exit(int pid, int64_t time_ns, CloseReason why) {
  bool any = false;
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->first.first != pid) {
      ++it;
      continue;
    }
    Boundary b{pid, it->first.second, 0, time_ns};
    ++it;  // thread_exit erases the current entry
    any |= thread_exit(b, why);
  }
  return any;
}

}  // namespace roofprof::regions
