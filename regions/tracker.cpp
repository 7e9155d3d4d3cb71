#include "regions/tracker.hpp"

#include <algorithm>
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

bool Tracker::is_open(RegionId region, int pid, Tid tid) const {
  auto it = open_.find({pid, tid});
  if (it == open_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const Open& o) { return o.region == region; });
}

bool Tracker::in_function(int pid, Tid tid) const {
  auto it = open_.find({pid, tid});
  if (it == open_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [](const Open& o) { return !o.is_span; });
}

CountSource* Tracker::source_of(const Boundary& b) const {
  CountSource* s = b.counts ? b.counts : counts_;
  if (!s) throw std::logic_error("regions::Tracker: a boundary without a count source");
  return s;
}

size_t Tracker::open_count() const {
  size_t n = 0;
  for (const auto& [k, v] : open_) n += v.size();
  return n;
}

bool Tracker::open(RegionId region, bool is_span, const Boundary& b, std::string group) {
  if (is_open(region, b.pid, b.tid)) return false;  // recursion / re-reached START: counted once
  CountSource* src = source_of(b);
  open_[{b.pid, b.tid}].push_back(Open{region, is_span, b.sp, b.time_ns, src->read(b.pid, b.tid), src, std::move(group)});
  return true;
}

bool Tracker::enter(RegionId region, const Boundary& b, std::string group) {
  return open(region, false, b, std::move(group));
}
bool Tracker::span_start(RegionId region, const Boundary& b) { return open(region, true, b); }

void Tracker::close(const Key& key, Open&& o, int64_t end_ns, CountSource* source, const CounterValues& end,
                    CloseReason why) {
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
  if (source != o.source)  // two mechanisms' counters: no delta between them was measured
    std::fill(inst.counts.begin(), inst.counts.end(), std::numeric_limits<double>::quiet_NaN());
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
  CountSource* src = source_of(b);
  close(it->first, std::move(o), b.time_ns, src, src->read(b.pid, b.tid), CloseReason::SpanStop);
  if (v.empty()) open_.erase(it);
  return true;
}

bool Tracker::stack_at(const Boundary& b, CloseReason why) {
  auto it = open_.find({b.pid, b.tid});
  if (it == open_.end()) return false;
  auto& v = it->second;
  bool any = std::any_of(v.begin(), v.end(), [&](const Open& o) { return !o.is_span && o.entry_sp < b.sp; });
  if (!any) return false;
  CountSource* src = source_of(b);
  CounterValues end = src->read(b.pid, b.tid);
  // Close innermost first so instances come out in the order a real unwind would close them.
  for (size_t i = v.size(); i-- > 0;) {
    if (!v[i].is_span && v[i].entry_sp < b.sp) {
      Open o = std::move(v[i]);
      v.erase(v.begin() + long(i));
      close(it->first, std::move(o), b.time_ns, src, end, why);
    }
  }
  if (v.empty()) open_.erase(it);
  return true;
}

bool Tracker::thread_exit(const Boundary& b, CloseReason why) {
  auto it = open_.find({b.pid, b.tid});
  if (it == open_.end()) return false;
  CountSource* src = source_of(b);
  CounterValues end = src->read(b.pid, b.tid);
  auto v = std::move(it->second);
  Key key = it->first;
  open_.erase(it);
  for (size_t i = v.size(); i-- > 0;) close(key, std::move(v[i]), b.time_ns, src, end, why);
  return true;
}

bool Tracker::process_exit(int pid, int64_t time_ns, CloseReason why, CountSource* counts) {
  bool any = false;
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->first.first != pid) {
      ++it;
      continue;
    }
    Boundary b{pid, it->first.second, 0, time_ns, counts};
    ++it;  // thread_exit erases the current entry
    any |= thread_exit(b, why);
  }
  return any;
}

}  // namespace roofprof::regions
