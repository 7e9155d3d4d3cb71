#pragma once
// Counting backends behind one interface. A backend knows an ordered list of events and
// opens them for one thread at a time; ProcessCounters keeps every counted thread of one
// process and answers thread- and process-scope reads.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "common/counts.hpp"

namespace roofprof::counters {

// "Not counted" versus zero. A value whose perf group was enabled but never got a counter
// (time_running == 0 < time_enabled: possible with hardware multiplexing) is unknown, not 0.
// Inside CounterValues it is a quiet NaN, so it propagates through deltas and sums as
// "unknown". It must never reach a result: turn values into std::optional with
// counted_value() (NaN -> nullopt -> JSON null / "n/a") before writing or printing.
// A thread that has not run since open (time_enabled == 0) reads exact zeros.
inline constexpr double kNotCounted = std::numeric_limits<double>::quiet_NaN();
inline bool is_counted(double v) { return !std::isnan(v); }
inline std::optional<double> counted_value(double v) {
  return is_counted(v) ? std::optional<double>(v) : std::nullopt;
}

struct EventInfo {
  std::string name;  // as shown in results, e.g. "task-clock"
  std::string unit;  // "ns", "count", "flops", "bytes", ...
};

// The counters of one thread. Values are cumulative since open() and scaled for
// multiplexing (flagged) by the backend.
class ThreadCounters {
 public:
  virtual ~ThreadCounters() = default;
  virtual CounterValues read() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // "perf" for perf_event (software or hardware events), "time" for none.
  virtual std::string name() const = 0;
  virtual const std::vector<EventInfo>& events() const = 0;
  // Opens the events for thread `tid` (which is stopped or has not run yet), counting from now.
  // Throws UserError with advice (errno table in common/error.hpp) when it cannot.
  virtual std::unique_ptr<ThreadCounters> open(pid_t tid) = 0;
  // Events counted system-wide, not per thread (memory-controller uncore counts): the last
  // system_wide_events() of events(). A process-scope read appends them once, whatever the
  // number of threads; a thread-scope read has them as not counted.
  virtual size_t system_wide_events() const { return 0; }
  virtual CounterValues read_system_wide() { return {}; }
  // The perf_event groups open() opens for a thread, in events() order (attributes as opened,
  // the leader first), so that another reader (the in-process agent) can open the same events
  // itself; empty for events that are not the thread's perf events (none, emulation, system-wide).
  virtual std::vector<std::vector<perf_event_attr>> thread_groups() const { return {}; }
};

// perf_event software events, one group per thread (PERF_FORMAT_GROUP with
// TOTAL_TIME_ENABLED/RUNNING). Default events: task-clock, page-faults, context-switches.
// Accepted names: task-clock, cpu-clock, page-faults, minor-faults, major-faults,
// context-switches, cpu-migrations. Unknown names -> UserError.
// `user_level`: count without the kernel side (exclude_kernel), as an unprivileged user must at
// perf_event_paranoid >= 2; events are then named as user_level_name() says, the default set
// leaves out what counts nothing at user level, and asking for such an event is a UserError.
std::unique_ptr<Backend> make_perf_software_backend(std::vector<std::string> events = {}, bool user_level = false);
// No counters at all (--backend time).
std::unique_ptr<Backend> make_null_backend();

// Every counted thread of one process.
class ProcessCounters {
 public:
  explicit ProcessCounters(Backend& backend) : backend_(backend) {}
  void add_thread(pid_t tid);     // opens counters for a new (stopped) thread
  void remove_thread(pid_t tid);  // final read folded into the retired sum, then closed
  bool has_thread(pid_t tid) const { return threads_.count(tid) != 0; }
  CounterValues read_thread(pid_t tid);  // zeros of the right size if tid is unknown
  // Live threads + retired threads. `now`: what read_thread(tid) gave just before, taken for
  // that thread instead of reading its group again. Values are sums; `threads` has every thread's
  // own part (retired ones as last read), so that counter_delta scales thread by thread; threads
  // that exited with every group exact all along are pooled into part 0 (no scaling to do).
  CounterValues read_process(pid_t tid = 0, const CounterValues* now = nullptr);
  size_t size() const { return backend_.events().size(); }

 private:
  struct Live {
    uint64_t serial;
    std::unique_ptr<ThreadCounters> counters;
  };
  Backend& backend_;
  std::map<pid_t, Live> threads_;
  uint64_t next_serial_ = 1;
  CounterValues retired_;
  CounterValues retired_exact_;              // pooled: part 0
  std::vector<ThreadCounts> retired_parts_;  // the others, one each
};

}  // namespace roofprof::counters
