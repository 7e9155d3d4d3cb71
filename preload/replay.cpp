#include "preload/replay.hpp"

#include "counters/backend.hpp"

namespace roofprof::preload {

Replay::Replay(regions::Scope scope, size_t n_events, regions::Tracker& tracker)
    : tracker_(tracker), scope_(scope), n_events_(n_events) {}

void Replay::take_snapshot(const Record& r) {
  snapshot_tid_ = r.tid;
  if (n_events_ == 0) return;  // nothing to read: every snapshot is the empty one
  snapshot_.values.assign(n_events_, counters::kNotCounted);
  snapshot_.multiplexed = false;  // software events are never multiplexed
  if (r.has_counts)
    for (size_t i = 0; i < n_events_; ++i) snapshot_.values[i] = double(r.counts[i]);
}

void Replay::unknown_snapshot(regions::Tid tid) {
  snapshot_.values.assign(n_events_, counters::kNotCounted);
  snapshot_.multiplexed = false;
  snapshot_tid_ = tid;
}

CounterValues Replay::read(int, regions::Tid tid) {
  if (n_events_ == 0) return {};
  if (scope_ == regions::Scope::Thread && tid != snapshot_tid_) {
    CounterValues unknown;
    unknown.values.assign(n_events_, counters::kNotCounted);
    return unknown;
  }
  return snapshot_;
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
  }
}

void Replay::end_process(int pid, int64_t time_ns, regions::CloseReason why) {
  unknown_snapshot(0);
  tracker_.process_exit(pid, time_ns, why, this);
}

}  // namespace roofprof::preload
