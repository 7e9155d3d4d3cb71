#include "preload/replay.hpp"

#include "counters/backend.hpp"

namespace roofprof::preload {

Replay::Replay(size_t n_events, regions::Tracker& tracker) : tracker_(tracker), n_events_(n_events) {}

namespace {

// The record's values, or "not counted" where it has none.
void fill(CounterValues& into, size_t n, bool has, const std::array<uint64_t, RP_MAX_EVENTS>& values) {
  into.values.assign(n, counters::kNotCounted);
  into.multiplexed = false;  // software events are never multiplexed
  if (has)
    for (size_t i = 0; i < n; ++i) into.values[i] = double(values[i]);
}

}  // namespace

void Replay::take_snapshot(const Record& r) {
  snapshot_tid_ = r.tid;
  if (n_events_ == 0) return;  // nothing to read: every snapshot is the empty one
  fill(snapshot_, n_events_, r.has_counts, r.counts);
  fill(process_, n_events_, r.has_process_counts, r.process_counts);
}

CounterValues Replay::unknown() const {
  CounterValues v;
  v.values.assign(n_events_, counters::kNotCounted);
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

void Replay::feed(const Record& r, const std::vector<regions::RegionId>& regions) {
  regions::Boundary b{r.pid, r.tid, r.sp, r.time_ns, this};
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
