#pragma once
// What the probes of a run cost, and when they cost too much (docs/methodology.md, "What probes
// cost"). The budget keeps the numbers (the timed round trips of single steps, the time spent
// handling probes' stops, each region's stops in the run and in each thread) and decides on
// them; Session does the measuring and acts on the decisions (removing probes, warning).
// Nothing here touches a tracee: every time is passed in, so the decisions can be tested on fed
// numbers (tests/unit/tracer/probe_budget_test.cpp).
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "regions/tracker.hpp"

namespace roofprof::tracer {

// Nanoseconds a thread has run its own code (user CPU time, /proc/TGID/task/TID/stat's utime);
// -1 when unreadable (it ended).
int64_t thread_run_ns(pid_t tgid, pid_t tid);

class ProbeBudget {
 public:
  // A region whose probes are to stop (check()): how far into the run, what they had cost, and
  // the thread whose own budget it broke (0: the run's).
  struct Cut {
    regions::RegionId region = 0;
    int64_t wall_ns = 0;
    double cost_s = 0;
    pid_t thread = 0;
  };
  // A region whose probes cost a large part of the run (report()).
  struct Cost {
    regions::RegionId region = 0;
    uint64_t stops = 0;
    double estimated_s = 0;
    bool warn = false;  // large enough to warn about (not only kept because attached)
  };
  using RunTime = std::function<int64_t(pid_t tgid, pid_t tid)>;

  // `max_slowdown`: --max-probe-slowdown (0: never stop probing). `run_time`: a thread's user
  // CPU time so far (thread_run_ns unless a test feeds its own).
  explicit ProbeBudget(double max_slowdown, RunTime run_time = thread_run_ns);

  // The timed round trip of one single step (a ptrace stop with one instruction in it).
  void note_step(int64_t ns);
  void note_steps(const std::vector<int64_t>& ns) {
    for (int64_t n : ns) note_step(n);
  }
  bool calibrated() const { return !step_ns_.empty(); }
  // One probe's stop handled in `ns` (its part that was not the probe's cost left out).
  void note_handling(int64_t ns);
  // Time spent within the handling of a probe's stop that is not what the probe costs each time
  // (a module's patching, a cache eviction): Handling leaves it out.
  void not_probe_cost(int64_t ns) { excluded_ns_ += ns; }
  // The cost of one stop: the median of the timed steps plus the mean handling time; 0 before a
  // step was timed.
  int64_t stop_cost_ns() const;

  // Thread `tid` of `tgid` stopped `stops` times for `region`'s probes at `now`.
  void count_stops(pid_t tgid, pid_t tid, regions::RegionId region, uint64_t stops, int64_t now);
  uint64_t stops(regions::RegionId region) const;
  bool stopped(regions::RegionId region) const { return stopped_.count(region) != 0; }

  // True at most every 50 ms (a check is due); false too when nothing is ever stopped.
  bool due(int64_t now);
  // The regions to stop probing now, `wall` into the run with `threads` measured threads live
  // and the in-process agent's cost so far per region (empty without it); they count as
  // stopped from here on.
  std::vector<Cut> check(int64_t now, int64_t wall, size_t threads, const std::map<regions::RegionId, double>& agent_ns);
  // At the end of a run `wall` long: the regions whose probes cost a large part of it (attached:
  // every region, their calls can be measured by breakpoints only); stopped ones were said.
  std::vector<Cost> report(int64_t wall, bool attached) const;

  // Times the handling of one probe's stop into the budget (RAII).
  class Handling {
   public:
    explicit Handling(ProbeBudget& b);
    ~Handling();
    Handling(const Handling&) = delete;
    Handling& operator=(const Handling&) = delete;

   private:
    ProbeBudget& b_;
    int64_t t0_;
    int64_t excluded0_;
  };

 private:
  struct ThreadStops {
    pid_t tgid = 0;
    int64_t since_ns = 0;  // its first probe stop
    int64_t run0_ns = 0;   // its CPU time then
    std::map<regions::RegionId, uint64_t> by_region;
  };
  void cut(std::vector<Cut>& out, regions::RegionId region, int64_t wall, double cost_s, pid_t thread);
  void check_threads(std::vector<Cut>& out, int64_t now, int64_t cost, int64_t wall);

  double max_slowdown_;
  RunTime run_time_;
  std::vector<int64_t> step_ns_;  // recent step round trips (a ring)
  size_t step_next_ = 0;
  int64_t handling_ns_ = 0;
  uint64_t handled_stops_ = 0;
  int64_t excluded_ns_ = 0;
  std::map<regions::RegionId, uint64_t> stops_;  // ptrace stops each region's probes caused
  std::map<pid_t, ThreadStops> threads_;
  std::set<regions::RegionId> stopped_;
  int64_t next_check_ns_ = 0;
};

}  // namespace roofprof::tracer
