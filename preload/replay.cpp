#include "preload/replay.hpp"

#include "counters/backend.hpp"

namespace roofprof::preload {

Replay::Replay(size_t n_events, regions::Tracker& tracker, std::vector<CounterGroupTimes> timed)
    : tracker_(tracker), n_events_(n_events), timed_(std::move(timed)) {}

namespace {

// The record's values, or "not counted" where it has none. Software events are exact; a timed
// group's values are raw counts with the group's times (record_format.h), scaled as deltas.
void fill(CounterValues& into, size_t n, const std::vector<CounterGroupTimes>& timed, bool has,
          const std::array<uint64_t, RP_MAX_VALUES>& values) {
  into.values.assign(n, counters::kNotCounted);
  into.multiplexed = false;
  into.groups = timed;
  if (!has) return;
  for (size_t i = 0; i < n; ++i) into.values[i] = double(values[i]);
  for (size_t j = 0; j < timed.size(); ++j) {
    into.groups[j].enabled = values[n + 2 * j];
    into.groups[j].running = values[n + 2 * j + 1];
  }
}

}  // namespace

void Replay::take_snapshot(const Record& r) {
  snapshot_tid_ = r.tid;
  if (n_events_ == 0) return;  // nothing to read: every snapshot is the empty one
  fill(snapshot_, n_events_, timed_, r.has_counts, r.counts);
  fill(process_, n_events_, timed_, r.has_process_counts, r.process_counts);
}

CounterValues Replay::unknown() const {
  CounterValues v;
  v.values.assign(n_events_, counters::kNotCounted);
  v.groups = timed_;
  return v;
}

void Replay::unknown_snapshot(regions::Tid tid) {
  snapshot_ = process_ = unknown();
  snapshot_tid_ = tid;
}

CounterValues Replay::read_thread(int, regions::Tid tid) {
  if (n_events_ == 0) return {};
  return tid == snapshot_tid_ ? snapshot_ : unknown();
}

CounterValues Replay::read_process(int, regions::Tid, const CounterValues&) {
  if (n_events_ == 0) return {};
  return process_;
}

regions::ProbeTime Replay::probe_since_last(const Record& r) {
  ProbeSoFar& last = probe_[{r.pid, r.tid}];
  // A thread's values only grow; smaller ones are a new thread with the same id.
  if (r.probe_ns < last.ns || r.probe_boundaries < last.boundaries) last = {};
  regions::ProbeTime p{double(r.probe_ns - last.ns), double(r.probe_boundaries - last.boundaries) * untimed_ns_};
  last = {r.probe_ns, r.probe_boundaries};
  if (r.kind == RecordKind::ThreadExit) probe_.erase({r.pid, r.tid});
  return p;
}

void Replay::feed(const Record& r, const std::vector<regions::RegionId>& regions) {
  regions::Boundary b{r.pid, r.tid, r.sp, r.time_ns, this, probe_since_last(r)};
  take_snapshot(r);
  switch (r.kind) {
    case RecordKind::Enter:
      for (regions::RegionId id : regions)
        tracker_.enter(id, b, call_key_ ? call_key_(id, r.pid, r.ret) : std::string());
      break;
    case RecordKind::StackAt: tracker_.stack_at(b, r.reason); break;
    case RecordKind::ThreadExit: tracker_.thread_exit(b, r.reason); break;
    case RecordKind::ProcessExit: tracker_.process_exit(r.pid, r.time_ns, r.reason, this); break;
    case RecordKind::SpanStart:
      for (regions::RegionId id : regions) tracker_.span_start(id, b);
      break;
    case RecordKind::SpanStop:
      for (regions::RegionId id : regions) tracker_.span_stop(id, b);
      break;
    case RecordKind::SpanResume:
      for (regions::RegionId id : regions) tracker_.span_resume(id, b);
      break;
  }
}

void Replay::end_process(int pid, int64_t time_ns, regions::CloseReason why) {
  unknown_snapshot(0);
  tracker_.process_exit(pid, time_ns, why, this);
}

}  // namespace roofprof::preload
