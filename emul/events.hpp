#pragma once
// The tool's event files -> regions::Tracker.
//
// Each process image writes one file (DIR/<pid>.<seq>.events; an exec'd image keeps the pid
// and takes the next seq). Lines, after a header ("roofprof-emul 1", "pid P parent Q",
// "counters NAME..."), are boundary facts with counter deltas (see emul/tool/rp_main.c), told
// apart by the letters of emul/events_format.h, which the tool writes them with:
//   P <probe>[,<probe>] <tid> <sp> <thread deltas> | <process deltas or "=">
//   R <why> <tid> <sp> ...        sp rose above a probed entry: r ret, l longjmp,
//                                 x exception unwinding, j other indirect jump
//   X <tid> 0 ...                 thread exit
//   E <tid> 0 ... / e             execve attempted / it failed
//   F <tid> <thread deltas>       a live thread's final values at process end
//   Z <exit code> <process deltas>
//   K <instructions> <ms>         progress
//   M <bias> <n> <path>           an object with n probes was mapped
//   N <region> <spec> <symbol>    the in-process agent's region id <region> (emul/tool/rp_agent.c)
//   A <kind> <reason> <region> <tid> <sp> ...
//                                 one record of the agent (preload/record_format.h), fed to
//                                 the Tracker as preload::Replay feeds a native record
// The region semantics stay in the Tracker; this class only translates:
//   P: stack_at(sp, Unwound) (frames below sp are gone), then stops, starts and entries;
//   R r: stack_at(sp - 8, Unwound) then stack_at(sp, Return); R l/x/j: stack_at(sp,
//   Longjmp/Exception/Unwound); X: thread_exit; end of file: process_exit (ProcessExit, or
//   Crash when the image died of a signal or the file ends without "Z" or "E").
// Instances carry no time (begin_ns = end_ns = 0): emulated time means nothing.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "emul/probes.hpp"
#include "regions/tracker.hpp"

namespace roofprof::emul {

// The planner's regions of an agent region (spec index, raw symbol), as
// preload::RegionNames::regions_for gives them in the native run.
using AgentRegions = std::function<std::vector<regions::RegionId>(uint32_t spec, const std::string& symbol)>;

class EventParser {
 public:
  EventParser(std::vector<probes::PlannedProbe> probes, regions::Scope scope, regions::Tracker::Sink sink,
              AgentRegions agent_regions = {});
  ~EventParser();
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  // Files are fed line by line (without the newline); several may be open at once (one per
  // pid). Throws UserError("<name>:<line>: ...") on a malformed line.
  int open_file(std::string name);
  void line(int file, std::string_view text);
  // The file is complete; `crashed` says the image died of a signal.
  void close_file(int file, bool crashed);

  const std::vector<std::string>& counters() const { return names_; }
  // Cumulative process counts of each pid at its last "Z".
  const std::map<int, std::vector<double>>& totals() const { return totals_; }
  // Exit codes reported by the tool per pid.
  const std::map<int, int>& exit_codes() const { return exit_codes_; }
  // Pids of images that ended in an execve ("E" not followed by "e"), in the order closed.
  const std::vector<int>& execed() const { return execed_; }
  // Modules in which probes were resolved (from "M" lines).
  const std::set<std::string>& probed_modules() const { return probed_modules_; }
  // For progress: the latest instruction count seen and the region most recently opened
  // that is still open.
  uint64_t instructions() const { return instructions_; }
  std::optional<regions::RegionId> current_region() const;

 private:
  struct File;
  class Counts;
  File& file(int id);
  void update(File& f, regions::Tid tid, std::string_view* tok, size_t ntok, bool with_process);
  void on_probe(File& f, std::string_view* tok, size_t n);
  void on_departure(File& f, std::string_view* tok, size_t n);
  void on_agent_name(File& f, std::string_view* tok, size_t n);
  void on_agent_record(File& f, std::string_view* tok, size_t n);
  void opened(bool did, regions::RegionId region);

  std::vector<probes::PlannedProbe> probes_;
  regions::Scope scope_;
  regions::Tracker::Sink sink_;
  AgentRegions agent_regions_;
  std::unique_ptr<Counts> counts_;
  std::unique_ptr<regions::Tracker> tracker_;
  std::map<int, std::unique_ptr<File>> files_;
  int next_file_ = 0;
  std::vector<std::string> names_;
  size_t n_counters_ = 0;
  std::map<int, std::vector<double>> totals_;
  std::map<int, int> exit_codes_;
  std::vector<int> execed_;
  std::set<std::string> probed_modules_;
  uint64_t instructions_ = 0;
  std::vector<regions::RegionId> open_order_;  // regions in opening order (progress)
};

}  // namespace roofprof::emul
