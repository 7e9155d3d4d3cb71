#pragma once
// A tracing session: launches (or attaches to) a program under ptrace, follows its threads
// (and, if asked, its child processes), places probes as modules load, and turns probe hits
// into region boundaries for the Tracker. Every wait goes through next_stop(), one dispatcher
// routes every stop to one handler; every resume goes through Task::resume() and every wait
// status through Task::did_wait(). What probes cost is the ProbeBudget's (probe_budget.hpp),
// what detaching a task involves detach.hpp's.
#include <sys/user.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "counters/backend.hpp"
#include "probes/entry_patch.hpp"
#include "probes/plan.hpp"
#include "regions/run_observer.hpp"
#include "regions/tracker.hpp"
#include "signatures/arg_reader.hpp"
#include "supervisor/run.hpp"
#include "supervisor/signals.hpp"
#include "symbolizer/modules.hpp"
#include "tracer/agent_link.hpp"
#include "tracer/call_path.hpp"
#include "tracer/probe_budget.hpp"
#include "tracer/task.hpp"
#include "tracer/wait_status.hpp"

namespace roofprof::tracer {

// The run's request (supervisor/run.hpp) and what only the tracer does with it.
struct SessionOptions : supervisor::RunOptions {
  SessionOptions() = default;
  explicit SessionOptions(supervisor::RunOptions run) : supervisor::RunOptions(std::move(run)) {}
  bool stop_at_entry = false;     // stop once the initial modules are loaded (roofprof symbols)
  bool record_modules = false;    // keep every module the program maps until it ends (symbols --run)
  // Combined mode: the in-process agent measures the sites it takes (not owned).
  AgentLink* agent = nullptr;
};

// The run's outcome (supervisor/run.hpp) and the modules the tracer saw.
struct SessionOutcome : supervisor::RunOutcome {
  // stop_at_entry: the modules at entry; record_modules: every module the launched process's
  // last program image mapped, in the order they appeared.
  std::vector<symbolizer::LoadedModule> modules;
  std::vector<std::string> loaded_late;  // paths among `modules` that appeared after the entry point (dlopen)
};

class Session : public regions::CountSource {
 public:
  // `tracker`: the run's one tracker (the combined mode's agent feeds it too); the session's
  // boundaries read their counts from the session (a CountSource).
  Session(SessionOptions opts, counters::Backend& backend, probes::Planner& planner, regions::Tracker& tracker);
  ~Session() override;
  // Runs to the end. Throws UserError (after killing or detaching the program) on bad input.
  SessionOutcome run();
  // The thread's and the process's counts (regions::CountSource).
  CounterValues read_thread(int pid, regions::Tid tid) override;
  CounterValues read_process(int pid, regions::Tid tid, const CounterValues& thread_now) override;

 private:
  // lifecycle (session.cpp)
  void launch();
  void attach();
  void loop();
  // One wait status of a tracee.
  struct Stop {
    pid_t tid = 0;  // 0: none came (interrupted by a signal): look at interrupts again
    WaitStatus ws;
  };
  // The next wait status of any tracee: every wait of the session goes through here (but the
  // stop-cost calibration's on a child of roofprof's own, stop_calibration.hpp, and a task's
  // own wait_own()). Null: nothing is left to wait for (ECHILD). `drain_agent`: in the combined
  // mode, the agent's records are drained while waiting.
  std::optional<Stop> next_stop(bool drain_agent);
  void dispatch(pid_t tid, WaitStatus ws);
  static How ongoing(const Task& t);
  void on_task_gone(Task& t, WaitStatus ws);
  void on_ptrace_event(Task& t, int event);
  void on_new_child(Task& parent, int event);
  void adopt_initial_stop(Task& t);
  void on_exec(Task& t);
  void on_exit_event(Task& t);
  void on_group_stop(Task& t, WaitStatus ws);
  void on_signal(Task& t, int sig);
  void on_sigtrap(Task& t, int sig);
  void handle_interrupt(supervisor::Action action);
  // Detaching is a state of the loop: begin_detach() interrupts every task; each stop then
  // goes to on_detach_stop(), which puts the task back on an original instruction, drains the
  // SIGTRAPs of ours still queued for it and parks it (detach.hpp); when every task is parked,
  // finish_detach() restores the code and detaches. detach_all() runs the loop to that end.
  void begin_detach();
  void on_detach_stop(Task& t, WaitStatus ws);
  void finish_detach();
  void detach_all();
  void kill_all();
  void remove_task(Task& t);
  Task* find_task(pid_t tid);
  ThreadGroup& new_group(pid_t tgid, std::shared_ptr<AddressSpace> as, bool measured);
  Task& new_task(ThreadGroup& g, pid_t tid);

  // probes and regions (session_probes.cpp)
  void on_breakpoint(Task& t);
  void on_step_done(Task& t);
  void handle_probes(Task& t, const std::vector<Probe>& probes, const user_regs_struct& regs);
  void continue_longjmp_step(Task& t, const user_regs_struct& regs);
  void close_unwound(Task& t, uint64_t sp, regions::CloseReason why);
  // Spans in loops (session_spans.cpp): while a span is open on the only thread of a process,
  // its START is no boundary, so its breakpoints are lifted until STOP or a new thread.
  void suspend_span_starts(ThreadGroup& g, regions::RegionId region);
  void restore_span_starts(Task& t, std::optional<regions::RegionId> only = std::nullopt);
  void drop_returns(Task& t, uint64_t below_sp, bool all);
  // What probes cost (session_cost.cpp, the arithmetic in probe_budget.hpp): every 50 ms of
  // stops, the regions whose probes break --max-probe-slowdown stop being probed
  // (stop_probing); at the end, those that cost a large part of the run are reported.
  void limit_probe_inflation();
  void stop_probing(const ProbeBudget::Cut& cut);
  void report_probe_costs();
  void execute_displaced(Task& t, TraceeAddr at, user_regs_struct regs);
  // A boundary of `t` now, read from this session's counters. In the combined mode the
  // agent's published records are drained first: one tracker, each thread's boundaries in order.
  regions::Boundary boundary(const Task& t, uint64_t sp);

  // modules (session_modules.cpp)
  void scan_modules(Task& t);
  void place_probes(Task& t, const symbolizer::LoadedModule& m, bool is_main);
  const std::vector<probes::PlannedProbe>& planned_for(const ThreadGroup& g, const symbolizer::LoadedModule& m,
                                                       bool is_main);
  std::map<std::tuple<pid_t, std::string, uint64_t>, std::vector<probes::PlannedProbe>> planned_;
  // native counting's patches of a module, before its region probes (session_native.cpp)
  void count_natively(Task& t, const symbolizer::LoadedModule& m, bool is_main,
                      const std::vector<std::pair<uint64_t, ProbeKind>>& hooks);
  void watch_uncounted(Task& t, size_t module);
  void uncounted_ran(Task& t, TraceeAddr at, const Probe& p);
  // Functions of the C runtime that tell roofprof about control flow it cannot see otherwise.
  static std::vector<std::pair<uint64_t, ProbeKind>> runtime_hooks(const symbolizer::ElfFile& elf, bool is_main);
  // `hooks`: runtime_hooks() of `m`, which no entry patch may cover.
  void place_region_probes(Task& t, const symbolizer::LoadedModule& m, bool is_main,
                           const std::vector<std::pair<uint64_t, ProbeKind>>& hooks);
  // Entry patches (session_patches.cpp). Combined mode: the region probes of modules mapped
  // before the agent wait for it; true when `m`'s must wait.
  bool defer_for_agent(Task& t, const symbolizer::LoadedModule& m, bool is_main);
  void place_deferred(Task& t);
  // Patches every function entry of `planned` it can in `m` (the agent measures them in the
  // program); returns their link-time addresses. `busy`: link-time addresses of other code
  // probes of the module (runtime hooks), which no patch may cover. `refused`: the entries it
  // could not patch, with the warning to give if a breakpoint ends up measuring them.
  std::set<uint64_t> patch_entries(Task& t, const symbolizer::LoadedModule& m,
                                   const std::vector<probes::PlannedProbe>& planned, const std::set<uint64_t>& busy,
                                   std::map<uint64_t, std::string>* refused);
  // Patches every boundary of an inlined copy (span sites of function regions) of `planned` it
  // can in `m`, one probe to an address (preload/patch_format.h, "Span patches"); returns their
  // link-time addresses. `busy` and `refused` as patch_entries'.
  std::set<uint64_t> patch_spans(Task& t, const symbolizer::LoadedModule& m,
                                 const std::vector<probes::PlannedProbe>& planned, const std::set<uint64_t>& busy,
                                 std::map<uint64_t, std::string>* refused);
  std::optional<std::string> jumped_into(Task& t, const symbolizer::LoadedModule& m, const symbolizer::Symbol& self,
                                         uint64_t entry, size_t len);
  // Writes a planned patch (entry or span) at `site` of `sym`: its thunk, made by `thunk_code`
  // (the patch, the thunk's address) in scratch memory near the site, then the jump to it.
  // Returns why it could not (nullopt: written).
  using ThunkCode = std::function<std::vector<uint8_t>(const probes::EntryPatch&, uint64_t thunk)>;
  std::optional<std::string> write_patch(Task& t, const symbolizer::LoadedModule& m, const symbolizer::Symbol& sym,
                                         TraceeAddr site, const std::variant<probes::EntryPatch, std::string>& plan,
                                         const ThunkCode& thunk_code);
  void initial_check(Task& t);
  TraceeAddr map_scratch(Task& t, TraceeAddr near, size_t size, TraceeAddr prefer = TraceeAddr());
  // AddressSpace::add_probe with scratch pages mapped in `t`; false (warned once) when none
  // could be: the probe is left out and the run goes on.
  bool add_probe(Task& t, TraceeAddr at, const Probe& p);
  std::vector<const symbolizer::ElfFile*> module_files(const ThreadGroup& g) const;

  SessionOptions opts_;
  counters::Backend& backend_;
  probes::Planner& planner_;
  regions::Tracker& tracker_;
  symbolizer::ElfCache elf_cache_;
  Unwinder unwinder_;  // call paths at entry (--group-by caller)
  std::map<pid_t, std::unique_ptr<ThreadGroup>> groups_;
  std::map<pid_t, WaitStatus> early_stops_;  // stops of tasks not announced yet
  pid_t main_pid_ = 0;
  bool root_ended_ = false;  // the agent link was told (combined mode)
  std::set<regions::RegionId> not_called_warned_;  // entered without a call: warned once
  bool scratch_warned_ = false;
  std::set<std::string> patch_refusals_;  // warned once per function and reason
  // rel32 branch targets (absolute) of each module's code, by (path, bias): built at its first patch
  std::map<std::pair<std::string, uint64_t>, std::vector<uint64_t>> rel32_index_;
  bool detaching_ = false;  // the loop detaches (begin_detach)
  bool finish_requested_ = false;  // stop_at_entry reached: end the program
  supervisor::InterruptPolicy interrupts_;  // acted on between stops
  int64_t start_ns_ = 0;
  uint64_t stops_seen_ = 0;  // stops dispatched so far
  ProbeBudget budget_;
  SessionOutcome outcome_;
};

}  // namespace roofprof::tracer
