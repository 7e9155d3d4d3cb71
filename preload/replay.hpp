#pragma once
// Agent records -> boundaries of the run's one regions::Tracker (shared with the tracer in the
// combined mode). The boundaries read counts through this CountSource, which serves the
// snapshots carried by the record being replayed (its thread's own, and in scope=process the
// process's).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "preload/record_file.hpp"
#include "regions/tracker.hpp"

namespace roofprof::preload {

class Replay : public regions::CountSource {
 public:
  // `timed`: the file's timed groups (first, count), in the order their times follow the events.
  Replay(size_t n_events, regions::Tracker& tracker, std::vector<CounterGroupTimes> timed = {});

  // `regions`: the planner's regions of an Enter record (several specs can name one
  // function; none: a region roofprof does not know, the record is skipped). Other kinds
  // ignore it.
  void feed(const Record& r, const std::vector<regions::RegionId>& regions);
  // The process ended without an exit record (killed by a signal, _exit, exec): everything it
  // has open closes at `time_ns` with `why`; the counts at that moment are unknown (null).
  void end_process(int pid, int64_t time_ns, regions::CloseReason why);
  // The group of an entered call from its return address (run --group-by caller); unset: none.
  using CallKey = std::function<std::string(regions::RegionId, int pid, uint64_t return_address)>;
  void key_calls(CallKey key) { call_key_ = std::move(key); }
  // The cost of each boundary outside the agent's own clock reads, from its calibration
  // (AgentTable::Calibration): added to the probe time the records measured.
  void set_untimed_per_boundary(double ns) { untimed_ns_ = ns; }

  // regions::CountSource: the current record's snapshots. A thread's belongs to the record's
  // thread only: other threads read "not counted", as does a snapshot the record lacks.
  CounterValues read_thread(int pid, regions::Tid tid) override;
  CounterValues read_process(int pid, regions::Tid tid, const CounterValues& thread_now) override;

 private:
  void take_snapshot(const Record& r);
  void unknown_snapshot(regions::Tid tid);
  // The probe time of r's thread since its previous record.
  regions::ProbeTime probe_since_last(const Record& r);
  CounterValues unknown() const;

  regions::Tracker& tracker_;
  size_t n_events_;
  std::vector<CounterGroupTimes> timed_;
  CounterValues snapshot_, process_;
  regions::Tid snapshot_tid_ = 0;
  CallKey call_key_;
  double untimed_ns_ = 0;
  struct ProbeSoFar {
    int64_t ns = 0;
    uint64_t boundaries = 0;
  };
  std::map<std::pair<int, regions::Tid>, ProbeSoFar> probe_;  // per thread: its last record's
};

}  // namespace roofprof::preload
