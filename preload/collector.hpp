#pragma once
// Every record file of one run (one directory, one file per process image): opens files as
// they appear, drains them while the program runs, replays their records into one Replay in
// per-process order, names regions through the planner, and says what could not be measured.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "preload/agent_table.hpp"
#include "preload/doorbell.hpp"
#include "preload/record_file.hpp"
#include "preload/region_names.hpp"
#include "preload/replay.hpp"
#include "regions/run_observer.hpp"
#include "common/overhead.hpp"

namespace roofprof::preload {

class Collector {
 public:
  // `tracer_plans`: the combined mode, where the tracer gives the planner every module (the
  // agent's module list is not planned again) and says itself what is not measured.
  // `timed`: the agent's timed groups (AgentEvents::timed), whose times its snapshots carry.
  Collector(std::string dir, probes::Planner& planner, size_t n_events,
            regions::Tracker& tracker, bool tracer_plans = false, std::vector<CounterGroupTimes> timed = {});

  // How long the reader sleeps at most while the program writes fewer records than a ring's mark:
  // the records of a slow program wait no longer than this.
  static constexpr int64_t kDrainTimeoutNs = 100'000'000;
  // A ring is past its mark but the drain stopped at a slot claimed and not yet written (its
  // writer was preempted): the next look is after this nap, not at once.
  static constexpr int64_t kStalledNapNs = 50'000;

  // The reader's wait (docs/preload.md, "Records and the C++ side"): arms the doorbell, calls
  // `quiet` (the caller's own check: a child's stop or exit; false ends the wait at once), and
  // unless a ring is past its mark sleeps until an agent rings, a signal (SIGCHLD while a
  // ChildSignal lives), or kDrainTimeoutNs after the last poll. Then polls if an agent rang, a
  // ring is past its mark, or the timeout passed. Returns the records replayed.
  size_t wait_and_drain(const std::function<bool()>& quiet);
  // SIGCHLD cuts the reader's sleep short while the returned object lives.
  std::unique_ptr<Doorbell::ChildSignal> wake_on_child() { return std::make_unique<Doorbell::ChildSignal>(bell_); }
  // The reader's own cost: CPU time (user + system) of the thread that calls this collector,
  // spent inside its calls (opening files, draining, replaying, sleeping on the doorbell).
  overhead::AgentReader reader_cost() const;

  // Opens new files and drains every open one; a file whose process is gone (or replaced by
  // exec) is drained to its end and what it left open is closed. Returns records replayed.
  size_t poll();
  // Drains every record published so far (opening new files, no process checks): the combined
  // mode calls it before the tracer applies a boundary, so that each thread's boundaries reach
  // the one tracker in the order the thread crossed them.
  size_t drain_published();
  // The measured program `pid` ended at `end_ns` (CLOCK_MONOTONIC), killed by `term_signal`
  // (0: it exited). Its files are drained to the end; instances it left open close as crash
  // (killed) or process_exit, with unknown counts.
  void root_ended(int pid, int64_t end_ns, int term_signal);
  // Drains process `pid`'s file up to every position its threads have claimed by now. The ring
  // is shared: a thread's last records can sit behind a slot another thread has claimed but
  // not written yet, so that slot is waited for, `max_wait_ns` at most (its writer may be in a
  // ptrace stop). Called when a thread of `pid` exits, so that its returns come before its exit.
  size_t drain_claimed(int pid, int64_t max_wait_ns);
  // Processes other than the root with a record file that are still running (--follow-fork).
  bool others_running();
  // Drains and closes everything (processes still running are closed as detach).
  void finish(int64_t end_ns);

  // What could not be measured, one line each, for the result's warnings.
  std::vector<std::string> warnings() const;
  bool complete() const;  // false when the agent lost records
  uint64_t evictions() const;  // cache evictions the agents made (--cache-state cold), all processes
  bool has_file_of(int pid) const;
  // A function entry of `regions` the tracer patched (combined mode, preload/patch_format.h):
  // the region word the agent's records of it carry.
  uint32_t add_patch(std::vector<regions::RegionId> regions);
  // What one boundary of the agent costs in the process roofprof started, from its
  // calibration at start (preload/agent/calibrate.c): the median time inside an instance of
  // an empty function, and the whole cost of one call of it. nullopt before the agent said.
  std::optional<overhead::AgentBoundary> boundary_cost() const;
  // Entered calls get a group from their return address (run --group-by caller); `modules` is
  // told each module an agent loaded (pid, path, bias), so that the addresses can be named after
  // the process is gone.
  using ModuleSeen = std::function<void(int pid, const std::string& path, uint64_t bias)>;
  void key_calls(Replay::CallKey key, ModuleSeen modules) {
    replay_.key_calls(std::move(key));
    module_seen_ = std::move(modules);
  }
  // The same, asking `observer` (not owned) when it keys returns (RunObserver::keys_returns()).
  void key_calls(regions::RunObserver& observer) {
    if (!observer.keys_returns()) return;
    key_calls([&observer](regions::RegionId id, int pid, uint64_t ret) { return observer.key_of_return(id, pid, ret); },
              [&observer](int pid, const std::string& path, uint64_t bias) { observer.module_seen(pid, path, bias); });
  }
  // The probe budget (tracer::AgentLink): what each region's calls replayed so far cost the
  // program, at the calibration's cost of a call with or without counters (empty before the
  // calibration came); and turning a region's probes off in every process.
  std::map<regions::RegionId, double> probe_cost_ns() const;
  void stop_probing(regions::RegionId region);
  // Regions a survey chose (run --regions-from): one whose calls turn out shorter than `factor`
  // times what its in-process probe costs a call (clock only) is no longer probed once the agent
  // has timed its first calls, and the run says so (warnings()).
  void skip_if_frequent(std::set<regions::RegionId> regions, double factor) {
    skippable_ = std::move(regions);
    skip_factor_ = factor;
  }
  struct Skipped {
    double mean_call_ns = 0;   // of the calls the agent timed
    double probe_call_ns = 0;  // what the probe costs a call, clock only
  };
  const std::map<regions::RegionId, Skipped>& skipped() const { return skipped_; }
  // Planner regions whose boundaries the agent made clock-only (counters only where cheap).
  std::set<regions::RegionId> clock_only() const;
  // Planner regions the agent hooked at least once.
  const std::set<regions::RegionId>& hooked() const { return hooked_; }

 private:
  struct Source {
    std::unique_ptr<RecordFile> file;
    std::vector<std::vector<regions::RegionId>> ids;  // by agent region id
    std::vector<bool> mapped;
    bool ended = false;
  };
  using Key = std::tuple<int, int64_t, std::string>;  // pid, start time, path

  // Adds the calling thread's CPU time between its construction and its end to reader_cpu_ns_
  // (the outermost of nested spans only).
  class CpuSpan {
   public:
    explicit CpuSpan(Collector& c);
    ~CpuSpan();

   private:
    Collector& c_;
    int64_t start_ = 0;
  };
  bool past_mark() const;  // a ring holds RP_DOORBELL_MARK records claimed and not drained
  void open_new_files();
  size_t drain(Source& s, bool final);
  void note_calibration(const Record& r);
  void note_calibration_cycle(const Record& r);
  // What a call through the agent costs, from the calibration at start: with counters, with the
  // clock alone, and per boundary outside its own clock reads.
  struct CallCosts {
    double counted_ns = 0, clock_ns = 0, untimed_per_boundary_ns = 0;
  };
  CallCosts call_costs() const;
  void end(Source& s, int64_t time_ns, regions::CloseReason why);
  void map_regions(Source& s);
  const std::vector<regions::RegionId>& regions_of(Source& s, uint32_t agent_id);
  // The planner regions of an agent region word of `s` as mapped so far (none: not mapped).
  const std::vector<regions::RegionId>& mapped_regions(const Source& s, uint32_t agent_id) const;
  std::vector<std::string> clock_only_warnings() const;
  void turn_off_stopped(Source& s);
  void skip_frequent(Source& s);
  std::vector<std::string> skipped_warnings() const;

  std::string dir_;
  probes::Planner& planner_;
  RegionNames names_;
  Replay replay_;
  size_t n_events_ = 0;
  ModuleSeen module_seen_;
  std::map<Key, Source> sources_;
  std::set<std::string> opened_;
  std::vector<std::vector<regions::RegionId>> patches_;  // by patch id, in every process
  std::map<int, int64_t> calibration_entered_;  // tid -> time of its open calibration call
  std::vector<int64_t> calibration_ns_;         // inside time of each calibration call
  struct CalibrationCall {
    int64_t time_ns = 0, probe_ns = 0;
    bool counted = false, valid = false;
  };
  std::map<int, CalibrationCall> calibration_last_;  // tid -> its last calibration entry
  std::vector<int64_t> cycle_counted_ns_, cycle_clock_ns_, untimed_ns_;  // per calibration call
  std::optional<AgentTable::Calibration> calibration_;
  std::set<regions::RegionId> hooked_;           // planner regions with at least one hook
  struct CallsReplayed {
    uint64_t counted = 0, clock_only = 0;
  };
  std::map<regions::RegionId, CallsReplayed> calls_;  // the agent's calls of each region so far
  std::set<regions::RegionId> stopped_;               // no longer probed (the probe budget)
  std::set<regions::RegionId> skippable_;             // skip_if_frequent
  double skip_factor_ = 0;
  std::map<regions::RegionId, Skipped> skipped_;
  std::set<std::string> unnamed_;                // agent symbols the planner has no region for
  std::vector<std::string> agent_warnings_;
  Doorbell bell_;
  int64_t last_poll_ns_ = 0;
  bool stalled_ = false;  // the last poll found a ring past its mark and replayed nothing
  int cpu_depth_ = 0;
  int64_t reader_cpu_ns_ = 0;
  uint64_t sleeps_ = 0, rang_ = 0;
  int root_pid_ = 0;
  bool tracer_plans_ = false;
};

}  // namespace roofprof::preload
