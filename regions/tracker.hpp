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
//  * An inlined copy is a span whose START is its entry point (a call) and whose STOPs are where
//    control leaves its code. Control coming back into its code elsewhere (span_resume) reopens
//    it as a continuation of the thread's last call of the region: an instance that is no new
//    call (Instance::resumed), its time and counts the region's all the same.
//  * Thread exit and process exit close whatever is open on the thread / process, flagged.
//  * Counts (docs/methodology.md, "Counters and scope"). With scope=thread an instance has its
//    own thread's deltas between its two boundaries. With scope=process a region's work is
//    every thread's work while the region is open on at least one thread of the process, each
//    thread's counted once: an instance has its own thread's deltas, and the work of threads
//    that had no instance of the region open (a threaded library's workers, a thread outside
//    the region while others are in it) goes to the instance that opened first (the anchor),
//    as the process's delta over the time the region was open, less the instances' own deltas.
//    The anchor is passed on when the last instance of the region in the process closes. So
//    concurrent calls (OpenMP threads calling one function) are not counted several times, and
//    a boundary reads only its own thread's counters, the whole process's only when the region
//    opens or closes in the process.
//  * One tracker per run: every probe mechanism of the run (breakpoints, the in-process
//    agent, the emulation tool) feeds the same tracker, so a region whose sites are split
//    between mechanisms is still counted once at its outermost call. Each boundary says
//    where its counts are read (the mechanisms count with different counters): an instance
//    opened by one source and closed by another has unknown counts.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/counts.hpp"
#include "regions/close_reason.h"

namespace roofprof::regions {

using RegionId = uint32_t;
using Tid = int32_t;

enum class Scope { Process, Thread };

// Numbered as in regions/close_reason.h, the codes of the agent's records.
enum class CloseReason : uint8_t {
  Return = RP_REASON_RETURN,             // function returned normally
  SpanStop = RP_REASON_SPAN_STOP,        // span reached STOP
  Longjmp = RP_REASON_LONGJMP,           // a longjmp left the function
  Exception = RP_REASON_EXCEPTION,       // exception unwinding left the function
  Unwound = RP_REASON_UNWOUND,           // the stack was found above the entry later (cause not seen)
  ThreadExit = RP_REASON_THREAD_EXIT,    // the thread exited inside the region
  ProcessExit = RP_REASON_PROCESS_EXIT,  // the process exited inside the region
  Crash = RP_REASON_CRASH,               // the process died of a signal inside the region
  Detach = RP_REASON_DETACH,             // roofprof detached or was interrupted inside the region
};
static_assert(RP_REASONS == 9, "a new reason in regions/close_reason.h needs its CloseReason above");
// The reason a code of regions/close_reason.h names (an agent record's); Unwound for a code it
// does not define. code_of is the inverse.
CloseReason close_reason(uint64_t code);
constexpr uint8_t code_of(CloseReason r) { return uint8_t(r); }
const char* to_string(CloseReason r);
// Every reason other than Return and SpanStop is flagged in reports.
inline bool is_abnormal(CloseReason r) { return r != CloseReason::Return && r != CloseReason::SpanStop; }

// The probes' own time on a thread (docs/methodology.md, "What probes cost"): what their
// boundaries measured of themselves, and what is added for their parts outside those
// measurements (a calibrated cost per boundary).
struct ProbeTime {
  double measured_ns = 0;
  double calibrated_ns = 0;
  double total_ns() const { return measured_ns + calibrated_ns; }
  ProbeTime& operator+=(const ProbeTime& o) {
    measured_ns += o.measured_ns, calibrated_ns += o.calibrated_ns;
    return *this;
  }
  ProbeTime operator-(const ProbeTime& o) const { return {measured_ns - o.measured_ns, calibrated_ns - o.calibrated_ns}; }
};

struct Instance {
  RegionId region = 0;
  int pid = 0;
  Tid tid = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  std::vector<double> counts;  // deltas in the backend's event order
  bool multiplexed = false;
  CloseReason reason = CloseReason::Return;
  std::string group = {};  // the call's group key (decoded arguments, e.g. "m=200,n=200,k=200"); "" if none
  // Instances open on the thread when it opened: its callers' instances close after it, at a
  // smaller depth.
  uint32_t depth = 0;
  // This instance (unique in the run, from 1) and the one open directly below it on its thread
  // when it opened (0: none): roofprof survey subtracts an instance's children from it, along
  // this call path (regions/self_counts.hpp).
  uint64_t id = 0, parent = 0;
  // Opened by a re-entry into an inlined copy's code (span_resume): part of the thread's last
  // call of the region, not a call of its own.
  bool resumed = false;
  // Scope=process, the first instance of the region open in the process only: the part of
  // `counts` that threads with no instance of the region open did meanwhile (empty: none).
  std::vector<double> others = {};
  // Scope=process: its own thread's counts were not measured (the thread had no counters);
  // `counts` then has 0 where they are unknown, and the work is in the first instance's `others`.
  bool own_unknown = false;
  // The probes' time on its thread between its two boundaries (its own entry's part after the
  // entry's timestamp, and every boundary of instances nested in it): compensation subtracts it.
  ProbeTime probe = {};
  // Its groups' time deltas (common/counts.hpp); scope=process: the first instance has the
  // process's, the others none (their threads' times are in it).
  std::vector<GroupTime> group_times = {};
};

// Reads cumulative counts. Called only when an instance opens or closes.
class CountSource {
 public:
  virtual ~CountSource() = default;
  // The thread's own counts.
  virtual CounterValues read_thread(int pid, Tid tid) = 0;
  // Every thread of the process, threads that exited included; only with scope=process, when
  // a region opens or closes in the process. Events counted only per process (uncore) are here
  // and not counted (NaN) in read_thread. `thread_now`: what read_thread(pid, tid) gave at this
  // same boundary, which a source may take for that thread instead of reading it again.
  virtual CounterValues read_process(int pid, Tid tid, const CounterValues& thread_now) = 0;
};

// Where and when a boundary was observed, and where its counts are read (null: the
// tracker's default source).
struct Boundary {
  int pid = 0;
  Tid tid = 0;
  uint64_t sp = 0;
  int64_t time_ns = 0;
  CountSource* counts = nullptr;
  // The probes' time on the thread since the previous boundary its mechanism reported, all of it
  // before time_ns.
  ProbeTime probe = {};
};

class Tracker {
 public:
  using Sink = std::function<void(Instance&&)>;
  // `counts`: the source of boundaries that name none.
  Tracker(CountSource& counts, Sink sink, Scope scope = Scope::Process)
      : counts_(&counts), sink_(std::move(sink)), scope_(scope) {}
  // Every boundary names its source (several probe mechanisms feed this tracker).
  explicit Tracker(Sink sink, Scope scope = Scope::Process) : sink_(std::move(sink)), scope_(scope) {}
  Scope scope() const { return scope_; }

  // Each returns true when an instance opened or closed.
  // `group`: the call's group key, carried to its Instance.
  bool enter(RegionId region, const Boundary& b, std::string group = {});
  bool span_start(RegionId region, const Boundary& b);
  // A re-entry into an inlined copy's code: opens a resumed instance unless open.
  bool span_resume(RegionId region, const Boundary& b);
  bool span_stop(RegionId region, const Boundary& b);
  // The thread's stack pointer is b.sp: function instances entered below it are closed.
  bool stack_at(const Boundary& b, CloseReason why);
  // Closes everything open on b.tid (span and function instances).
  bool thread_exit(const Boundary& b, CloseReason why);
  // Closes everything open in the process; counts read from `counts` (null: the default).
  bool process_exit(int pid, int64_t time_ns, CloseReason why, CountSource* counts = nullptr);

  bool is_open(RegionId region, int pid, Tid tid) const;
  // A function instance is open on the thread: an entry now is not an outermost call (the
  // rule of --cache-state cold, whichever mechanism opened the enclosing instance).
  bool in_function(int pid, Tid tid) const;
  size_t open_count() const;

 private:
  struct Open {
    RegionId region;
    bool is_span;
    uint64_t entry_sp;
    int64_t begin_ns;
    CounterValues begin;
    CountSource* source;  // where `begin` was read
    std::string group;
    uint32_t depth;
    bool anchor = false;  // scope=process: the region's first instance open in the process
    bool resumed = false;
    ProbeTime probe = {};  // the thread's probe time when it opened
    uint64_t id = 0, parent = 0;  // Instance::id, Instance::parent (set after the fields above)
  };
  using Key = std::pair<int, Tid>;
  // Scope=process: one region's instances open in one process (see the header comment).
  struct Shared {
    uint32_t open = 0;
    CounterValues begin;      // the process's counts when the first of them opened
    CountSource* source = nullptr;
    std::vector<double> own;  // the counted own deltas of its instances closed since
    std::vector<Instance> held;  // the anchor, closed while others were still open
  };
  using SharedKey = std::pair<int, RegionId>;
  // The process's counts at the boundary being applied, read once for every region closing there.
  struct ProcessRead {
    CountSource* source;
    int pid;
    Tid tid;
    const CounterValues& thread_now;
    bool done = false;
    CounterValues values = {};
    const CounterValues& get() {
      if (!done) values = source->read_process(pid, tid, thread_now), done = true;
      return values;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(uint64_t(uint32_t(k.first)) << 32 | uint32_t(k.second));
    }
  };
  using Threads = std::unordered_map<Key, std::vector<Open>, KeyHash>;
  // A thread's open instances (null: it has none), and the same, made when missing. The entry
  // of a thread stays while it lives, so that a call does not allocate (erase forgets it).
  std::vector<Open>* find(const Key& key);
  std::vector<Open>& at(const Key& key);
  void erase(Threads::iterator it);
  bool open(RegionId region, bool is_span, const Boundary& b, std::string group = {}, bool resumed = false);
  void close(const Key& key, Open&& o, int64_t end_ns, CountSource* source, const CounterValues& end,
             CloseReason why, ProcessRead& process);
  void share_open(Open& o, int pid, Tid tid, CountSource* src);
  void share_close(Instance&& inst, bool anchor, CountSource* source, ProcessRead& process);
  CountSource* source_of(const Boundary& b) const;
  // Adds the boundary's probe time to its thread's; returns the thread's.
  const ProbeTime& probe_of(const Boundary& b);

  CountSource* counts_ = nullptr;
  Sink sink_;
  Scope scope_ = Scope::Process;
  std::map<SharedKey, Shared> shared_;
  uint64_t next_id_ = 1;  // the next instance's id
  Threads open_;  // per thread, in order of opening
  std::unordered_map<Key, ProbeTime, KeyHash> probe_;  // per thread: its probes' time so far
  // The thread of the last lookup (replayed records come in runs of one thread).
  Key last_key_{0, 0};
  std::vector<Open>* last_ = nullptr;
};

}  // namespace roofprof::regions
