#pragma once
// Region semantics, defined once for every probe mechanism (tracer breakpoints, the
// preload agent's hooks, the emulation tool). Probes report boundaries; the tracker
// turns them into region instances.
//
//  * A function region instance opens at the function's entry on a thread and closes when
//    that thread's stack pointer rises above the entry stack pointer: a normal return
//    (sp = entry_sp + 8), a longjmp, or exception unwinding. Recursion counts once, at the
//    outermost level: an entry while the region is open on the thread is ignored.
//  * A span region instance opens when a thread reaches START and closes when the same
//    thread reaches STOP. Reaching START while open, or STOP while closed, does nothing.
//  * Thread exit and process exit close whatever is open on the thread / process, flagged.
//  * Counts of an instance are deltas of the run's scope between its two boundaries:
//    the whole process (scope=process) or the thread that entered (scope=thread).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/counts.hpp"

namespace roofprof::regions {

using RegionId = uint32_t;
using Tid = int32_t;

enum class Scope { Process, Thread };

enum class CloseReason : uint8_t {
  Return,       // function returned normally
  SpanStop,     // span reached STOP
  Longjmp,      // a longjmp left the function
  Exception,    // exception unwinding left the function
  Unwound,      // the stack was found above the entry later (cause not seen)
  ThreadExit,   // the thread exited inside the region
  ProcessExit,  // the process exited inside the region
  Crash,        // the process died of a signal inside the region
  Detach,       // roofprof detached or was interrupted inside the region
};
const char* to_string(CloseReason r);
// Every reason other than Return and SpanStop is flagged in reports.
inline bool is_abnormal(CloseReason r) { return r != CloseReason::Return && r != CloseReason::SpanStop; }

struct Instance {
  RegionId region = 0;
  int pid = 0;
  Tid tid = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  std::vector<double> counts;  // deltas in the backend's event order
  bool multiplexed = false;
  CloseReason reason = CloseReason::Return;
  std::string group;  // the call's group key (decoded arguments, e.g. "m=200,n=200,k=200"); "" if none
};

// Where and when a boundary was observed.
struct Boundary {
  int pid = 0;
  Tid tid = 0;
  uint64_t sp = 0;
  int64_t time_ns = 0;
};

// Reads cumulative counts in the run's scope for (pid, tid): the process total for
// scope=process, the thread's own for scope=thread. Called only when an instance
// opens or closes.
class CountSource {
 public:
  virtual ~CountSource() = default;
  virtual CounterValues read(int pid, Tid tid) = 0;
};

class Tracker {
 public:
  using Sink = std::function<void(Instance&&)>;
  Tracker(CountSource& counts, Sink sink) : counts_(counts), sink_(std::move(sink)) {}

  // Each returns true when an instance opened or closed.
  // `group`: the call's group key, carried to its Instance.
  bool enter(RegionId region, const Boundary& b, std::string group = {});
  bool span_start(RegionId region, const Boundary& b);
  bool span_stop(RegionId region, const Boundary& b);
  // The thread's stack pointer is b.sp: function instances entered below it are closed.
  bool stack_at(const Boundary& b, CloseReason why);
  // Closes everything open on b.tid (span and function instances).
  bool thread_exit(const Boundary& b, CloseReason why);
  // Closes everything open in the process.
  bool process_exit(int pid, int64_t time_ns, CloseReason why);

  bool is_open(RegionId region, int pid, Tid tid) const;
  size_t open_count() const;

 private:
  struct Open {
    RegionId region;
    bool is_span;
    uint64_t entry_sp;
    int64_t begin_ns;
    CounterValues begin;
    std::string group;
  };
  using Key = std::pair<int, Tid>;
  bool open(RegionId region, bool is_span, const Boundary& b, std::string group = {});
  void close(const Key& key, Open&& o, int64_t end_ns, const CounterValues& end, CloseReason why);

  CountSource& counts_;
  Sink sink_;
  std::map<Key, std::vector<Open>> open_;  // per thread, in order of opening
};

}  // namespace roofprof::regions
