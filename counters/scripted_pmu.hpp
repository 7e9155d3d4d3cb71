#pragma once
// A scripted PMU: a PerfSystem (perf_system.hpp) that answers perf_event_open and group reads
// from a script instead of the kernel, so that the real counting path runs and can be checked
// on a machine without a PMU. Installed in-process by tests (replace_perf_system) or, in a
// build with ROOFPROF_TEST_SEAMS, for a whole `roofprof` process by ROOFPROF_SCRIPTED_PMU=<file>.
//
// Script lines (`#` starts a comment; TYPE is a number or hw, sw, raw; CONFIG a number, 0x..):
//   cpu VENDOR FAMILY MODEL        what /proc/cpuinfo says (GenuineIntel 6 0xcf)
//   kernel NAME VALUE              /proc/sys/kernel/NAME (nmi_watchdog 1, perf_event_paranoid 2)
//   pmu NAME TYPE [CPUS]           a sysfs PMU (cpu_core 4; uncore_imc_0 17 0,56). PMUs named
//                                  cpu_core, cpu_atom or cpu_lowpower are core types (hybrid)
//   fail TYPE CONFIG ERRNO         opening this event fails (ENOENT, EACCES, EBUSY, EINVAL, ...);
//                                  TYPE or CONFIG may be `*`
//   counters N [TYPE]              general-purpose counters of PMU TYPE (hw and raw are the core
//                                  PMU), or of every PMU without its own line (default: no limit)
//   fixed TYPE CONFIG              an event that has a fixed counter (one per PMU)
//   watchdog gp | fixed TYPE CONFIG | off
//                                  what the NMI watchdog holds on every CPU: a general-purpose
//                                  counter, or the fixed counter of that event (which then needs a
//                                  general one). Default with `kernel nmi_watchdog 1`: AMD gp,
//                                  Intel the fixed counter of cycles (raw 0x3c, hw 0); else off
//   ticks N                        scheduler ticks per step, a divisor of 1000 (default 4)
//   residency TYPE F1 F2 ...       the share of step k the thread runs on CPUs of core type TYPE
//                                  (the first round(F*ticks) ticks); the rest on the other core
//                                  type. Default: always on the first core type declared
//   count TYPE CONFIG N1 N2 ...    the event occurs N(k mod n) times in the k-th step (k from 0),
//                                  spread evenly over the step's ticks on the event's core type
//   schedule TYPE CONFIG F1 F2 ... overrides the kernel model for the event's group: the share of
//                                  step k it holds counters (0 = never scheduled)
//
// The kernel model (kernel/events/core.c, arch/x86/events): a thread's time advances one step
// (1000 ns) when one of its groups is read that was already read at its current step, so that
// reading all of a thread's groups at a boundary is one step. At every tick the thread's groups
// of the PMU it runs on are scheduled, PMU by PMU: pinned groups first in open order, until the
// first that does not fit, which and every later pinned group of that PMU go into error state for
// good (their time stops and read(2) returns 0, end of file); then flexible groups in list order
// until the first that does not fit; when one did not fit, the next tick first moves the first
// group that ran to the end of the list (rotation). Every group not in error accrues
// time_enabled while its thread runs, on either core type; time_running and counts only while it
// is scheduled. Each event takes its fixed counter when it has one and it is free, else a general
// one; AMD family 17h+ event 0x003 (Retired SSE/AVX FLOPs, a Large Increment per Cycle event)
// takes a pair of counters (PERF_X86_EVENT_PAIR). The watchdog's counter is taken first.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "counters/perf_system.hpp"

namespace roofprof::counters {

class ScriptedPmu : public PerfSystem {
 public:
  // Throws UserError("<source>:<line>: ...") on a bad script.
  ScriptedPmu(const std::string& script, const std::string& source = "scripted PMU");
  ~ScriptedPmu() override;

  int open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd) override;
  ssize_t read(int fd, void* buf, size_t size) override;
  void close(int fd) override;
  std::string sysfs_root() override { return sysfs_->path(); }
  std::optional<int> kernel_setting(const std::string& name) override;
  CpuInfo cpu_info() override { return cpu_; }

  struct Opened {
    perf_event_attr attr;
    pid_t pid;
    int cpu;
    int group_fd;
  };
  const std::vector<Opened>& opened() const { return opened_; }  // successful opens, in order
  size_t open_fds() const { return events_.size(); }

 private:
  struct Key {
    int type = -1;  // -1: any
    long long config = -1;
  };
  struct Rule {
    Key key;
    std::vector<double> values;
  };
  struct Event {
    perf_event_attr attr;
    int leader;                // fd of the group leader (itself for a leader)
    std::vector<int> members;  // leader only: members in open order, itself first
    double raw = 0;
    uint64_t enabled = 0, running = 0;  // leader only
    uint64_t read_at = 0;               // leader only: the thread's step when last read
    bool error = false;                 // leader only: a pinned group that could not go on
  };
  // One thread (or, for system-wide events, one CPU): its groups in list order and its clock.
  struct Timeline {
    std::vector<int> flexible, pinned;  // leaders
    uint64_t steps = 0;
    std::set<int> rotate;  // PMU types whose last tick left a flexible group out
    std::map<int, int> last_first_active;  // PMU type -> first flexible leader that ran
  };
  struct Usage;  // counters taken during one tick, per PMU

  static bool matches(const Key& k, const perf_event_attr& a);
  const Rule* find(const std::vector<Rule>& rules, const perf_event_attr& a) const;
  void parse(const std::string& script, const std::string& source,
             std::vector<std::tuple<std::string, int, std::string>>& pmus);
  void default_watchdog();

  int pmu_of(const perf_event_attr& a) const;  // PERF_TYPE_RAW for hw/raw
  bool software(const perf_event_attr& a) const;
  bool is_core_type(int pmu) const { return core_types_.count(pmu) != 0; }
  bool pair_event(const perf_event_attr& a) const;
  bool fixed_event(const perf_event_attr& a) const;
  int counters_of(int pmu) const;
  // Takes the group's counters from `u` when they fit; false (and `u` unchanged) otherwise.
  bool fits(int leader, Usage& u) const;
  const Rule* schedule_of(int leader) const;  // the first member's `schedule` rule
  int core_type_at(uint64_t step, int tick) const;
  int ticks_on(uint64_t step, int core_type) const;
  void advance(Timeline& t);
  void tick(Timeline& t, uint64_t step, int tick);
  void accrue(int leader, uint64_t step, double share, int core_type, bool runs_here);
  Timeline& timeline_of(int leader);

  CpuInfo cpu_;
  std::map<std::string, int> kernel_;
  std::unique_ptr<TempDir> sysfs_;  // a private sysfs tree holding exactly the scripted PMUs
  std::vector<std::pair<Key, int>> failures_;
  int default_counters_ = 1 << 20;
  std::map<int, int> counters_;  // PMU type -> general-purpose counters
  std::vector<Key> fixed_;
  enum class Watchdog { unset, off, gp, fixed } watchdog_ = Watchdog::unset;
  std::vector<Key> watchdog_fixed_;
  int ticks_ = 4;
  std::vector<int> core_order_;  // core-type PMUs in declaration order
  std::set<int> core_types_;
  std::vector<Rule> residency_;
  std::vector<Rule> counts_, schedules_;
  std::map<int, Event> events_;
  std::map<long, Timeline> timelines_;  // by pid, or -(cpu + 2) for system-wide events
  std::map<int, long> timeline_key_;    // leader fd -> timeline
  std::vector<Opened> opened_;
};

// The script in `path`; throws UserError when it cannot be read or parsed.
std::unique_ptr<ScriptedPmu> load_scripted_pmu(const std::string& path);

}  // namespace roofprof::counters
