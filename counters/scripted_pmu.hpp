#pragma once
// A scripted PMU: a PerfSystem (perf_system.hpp) that answers perf_event_open and group reads
// from a script instead of the kernel, so that the real counting path runs and can be checked
// on a machine without a PMU. Installed in-process by tests (replace_perf_system) or, in a
// build with ROOFPROF_TEST_SEAMS, for a whole `roofprof` process by ROOFPROF_SCRIPTED_PMU=<file>.
//
// Script lines (`#` starts a comment; TYPE is a number or hw, sw, raw; CONFIG a number, 0x..):
//   cpu VENDOR FAMILY MODEL        what /proc/cpuinfo says (GenuineIntel 6 0xcf)
//   kernel NAME VALUE              /proc/sys/kernel/NAME (nmi_watchdog 1, perf_event_paranoid 2)
//   pmu NAME TYPE [CPUS]           a sysfs PMU (cpu_core 4; uncore_imc_0 17 0,56)
//   fail TYPE CONFIG ERRNO         opening this event fails (ENOENT, EACCES, EBUSY, EINVAL, ...);
//                                  TYPE or CONFIG may be `*`
//   counters N                     programmable counters: a group with more programmable events
//                                  (hardware/raw/PMU types, except `fixed` ones) never runs
//   fixed TYPE CONFIG              an event that runs on a fixed counter
//   count TYPE CONFIG N1 N2 ...    the event occurs N(k mod n) times in the k-th step (k from 0)
//   schedule TYPE CONFIG F1 F2 ... the share of step k that the event's group holds counters
//                                  (default 1; 0 = never scheduled)
// Every read of a group is one step of that group: time_enabled grows by 1000 ns, time_running
// by 1000*F, each member's raw count by round(N*F) (what a counter running F of the time sees).
#include <map>
#include <memory>
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
    int leader;              // fd of the group leader (itself for a leader)
    std::vector<int> members;  // leader only: members in open order, itself first
    uint64_t raw = 0, enabled = 0, running = 0, steps = 0;
  };
  static bool matches(const Key& k, const perf_event_attr& a);
  const Rule* find(const std::vector<Rule>& rules, const perf_event_attr& a) const;
  bool programmable(const perf_event_attr& a) const;

  CpuInfo cpu_;
  std::map<std::string, int> kernel_;
  std::unique_ptr<TempDir> sysfs_;  // a private sysfs tree holding exactly the scripted PMUs
  std::vector<std::pair<Key, int>> failures_;
  int counters_ = 1 << 20;
  std::vector<Key> fixed_;
  std::vector<Rule> counts_, schedules_;
  std::map<int, Event> events_;
  std::vector<Opened> opened_;
};

// The script in `path`; throws UserError when it cannot be read or parsed.
std::unique_ptr<ScriptedPmu> load_scripted_pmu(const std::string& path);

}  // namespace roofprof::counters
