#pragma once
// Region instances -> per-region aggregates (calls, time statistics, counter totals).
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "regions/tracker.hpp"

namespace roofprof::regions {

struct Quantiles {
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
};
// Quartiles by linear interpolation between order statistics (the "type 7" rule of R and
// numpy's default). Empty input has no quantiles.
std::optional<Quantiles> quantiles(std::vector<double> values);

// An instance kept as it was (the trace export's timeline, docs/result-schema.md "instances"):
// its boundaries' times, its compensated duration and its deltas.
struct KeptInstance {
  int64_t begin_ns = 0, end_ns = 0;
  double time_s = 0;  // the duration less the probes' time inside it (as Aggregate::time_s)
  uint32_t depth = 0;
  CloseReason reason = CloseReason::Return;
  bool resumed = false;
  bool multiplexed = false;
  bool own_unknown = false;
  std::vector<double> counts;  // as Instance::counts
  std::vector<double> others;  // as Instance::others (the anchor of scope=process only)
};
// The first kKeptPerThread instances of a region on one thread of one run, in closing order
// (which is opening order: a region is open at most once on a thread), and how many it had.
inline constexpr size_t kKeptPerThread = 256;
struct KeptThread {
  uint64_t instances = 0;  // every instance of the thread in the run, kept or not
  std::vector<KeptInstance> first;
  uint64_t left_out() const { return instances - first.size(); }
};
// A thread of a run whose instances were kept: (run, pid, tid), runs counted from 0 (--repeat).
using KeptKey = std::tuple<int, int, Tid>;

// One thread's part of a region: its calls, their time, and the work its own instances did
// (with scope=process, the work of threads that had no instance open is the region's
// `others_totals`, not a thread's).
struct ThreadPart {
  uint64_t calls = 0;
  double time_s = 0;
  std::vector<double> own;  // counter totals, backend event order (NaN: not counted)
  // The current run: where the thread's last call is in Aggregate::durations_s (a resumed
  // instance adds its time there); npos before its first call.
  size_t last_call = size_t(-1);
  KeptThread kept;  // the current run's; Aggregate::kept has the earlier runs'
};
// A thread as runs of the same program number it: the process's rank among the run's processes
// by pid, the thread's among the region's threads of its process by tid (the order the kernel
// created them in). The runs of --repeat and the native and emulated runs line up this way.
using ThreadNumber = std::pair<int, int>;

struct Aggregate {
  uint64_t calls = 0;                  // instances less the resumed ones (Instance::resumed)
  // Sum of instance durations, less the probes' time inside each (Instance::probe, at most the
  // instance's duration): compensated.
  double time_s = 0;
  // One per call, compensated, in completion order: a resumed instance's duration is added to its
  // thread's last call's.
  std::vector<double> durations_s;
  double time_measured_s = 0;          // sum of instance durations as measured
  ProbeTime probe_subtracted = {};     // what compensation took from time_measured_s, in ns
  std::vector<double> counter_totals;  // sums of instance deltas, backend event order
  bool multiplexed = false;
  std::vector<GroupTime> group_times;  // sums of the instances' group time deltas
  std::set<Tid> thread_ids;       // threads that ran the region in the current run
  size_t threads_most = 0;        // the most threads of any earlier run (--repeat)
  std::set<int> pids;
  // Threads that ran the region: per run, the largest run's count (a program run three times
  // with one thread has one thread, not three).
  size_t threads() const { return std::max(threads_most, thread_ids.size()); }
  std::map<CloseReason, uint64_t> closed_by;
  // Scope=process: what threads with no instance of the region open did while it was open.
  std::vector<double> others_totals;
  std::map<std::pair<int, Tid>, ThreadPart> run_parts;  // the current run's threads, by (pid, tid)
  std::map<ThreadNumber, ThreadPart> earlier_parts;     // earlier runs', summed by number
  // Every thread's part, the current run's numbered and added to the earlier runs'.
  std::map<ThreadNumber, ThreadPart> thread_parts() const;
  std::map<KeptKey, KeptThread> kept_earlier;  // the earlier runs' kept instances
  int run = 0;                                 // the current run's number (--repeat)
  // Every run's kept instances by (run, pid, tid), the current run's included.
  std::map<KeptKey, KeptThread> kept() const;
};

class Aggregator {
 public:
  void add(const Instance& inst);
  // The instances added from now on belong to a new run of the program (--repeat).
  void next_run();
  // Merges another run (--repeat) into this one.
  void merge(const Aggregator& other);
  const std::map<RegionId, Aggregate>& regions() const { return regions_; }

 private:
  std::map<RegionId, Aggregate> regions_;
  int run_ = -1;  // the current run (next_run before the first run starts it at 0); -1: none yet
  // What the last instance added to (instances come in runs of one region, thread and close
  // reason): the sets and the map need no lookup while they repeat. Null after next_run/merge.
  struct Last {
    RegionId region = 0;
    Aggregate* aggregate = nullptr;
    Tid tid = 0;
    int pid = 0;
    CloseReason reason = CloseReason::Return;
    uint64_t* closed = nullptr;
  } last_;
};

}  // namespace roofprof::regions
