#pragma once
// The tracee as ThreadGroup (a process: address space, modules, counters) -> Task (a thread).
//
// Task follows rr's Task (src/Task.h): resume() is the one way to run a task, did_wait() the
// one place a wait status is taken in, and the registers are read once per stop (cached) and
// written back lazily, at the next resume or detach. What the tracer is doing with a task is
// one variant, TaskState.
#include <signal.h>
#include <sys/types.h>
#include <sys/user.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "counters/backend.hpp"
#include "symbolizer/modules.hpp"
#include "tracer/address_space.hpp"
#include "tracer/displaced.hpp"
#include "tracer/wait_status.hpp"

namespace roofprof::tracer {

struct ThreadGroup;

// A return site watched for one open function instance of one thread.
struct ReturnWatch {
  TraceeAddr site;
  uint64_t entry_sp = 0;
};

// How a stopped task goes on.
enum class How { Continue, Step, Listen };

// Nothing special in progress.
struct Running {};
// Single-stepping the copy of a breakpointed instruction in its scratch slot.
struct DisplacedStep {
  TraceeAddr at, slot;
  Displaced insn;
};
// Single-stepping through longjmp until the stack pointer jumps up (Task::longjmp).
struct LongjmpStep {};
// Roofprof is detaching: the task is stopped and clean (no trap of ours pending, rip on an
// original instruction); it waits for the others.
struct Detaching {};
using TaskState = std::variant<Running, DisplacedStep, LongjmpStep, Detaching>;

// A longjmp being followed (it spans states: its steps may hit breakpoints).
struct LongjmpFollow {
  uint64_t sp0 = 0;
  int steps = 0;
};

class Task {
 public:
  Task(pid_t tid, ThreadGroup* group) : tid(tid), group(group) {}

  // The one way to run a task (rr's Task::resume_execution): writes dirty registers back, then
  // continues, single-steps or listens (group-stop), delivering `sig`. True: it runs. False:
  // ptrace said ESRCH, the task is gone (killed meanwhile), which is no error: its exit is
  // reported by a wait. Resuming a task that is not stopped (no stop taken in by did_wait()
  // since it last ran), or any other ptrace error, is a bug of roofprof's: std::logic_error
  // saying which task, which request and why.
  bool resume(How how, int sig = 0);
  // Every wait status of this task goes through here (the registers cache is dropped).
  void did_wait(WaitStatus ws);
  // Waits for this task's next stop (only for a task resumed just before, e.g. an injected
  // system call); the status also goes through did_wait().
  WaitStatus wait_own();
  // PTRACE_DETACH, registers written back first; `sig` is delivered.
  void detach(int sig = 0);
  void interrupt();

  // The registers at this stop (read once); false if they cannot be read (task gone).
  bool read_regs(user_regs_struct& out);
  const user_regs_struct& regs();
  void set_regs(const user_regs_struct& r);
  siginfo_t siginfo();
  unsigned long event_msg();
  // Signals pending for this thread alone (SigPnd of /proc/TGID/task/TID/status).
  uint64_t pending_signals() const;
  bool stopped() const { return stopped_; }
  const WaitStatus& last_status() const { return last_; }

  bool is_running() const { return std::holds_alternative<Running>(state); }
  bool is_stepping() const {
    return std::holds_alternative<DisplacedStep>(state) || std::holds_alternative<LongjmpStep>(state);
  }

  pid_t tid = 0;
  ThreadGroup* group = nullptr;
  TaskState state = Running{};
  std::optional<LongjmpFollow> longjmp;
  std::vector<ReturnWatch> returns;
  bool awaiting_initial_stop = false;  // new task: its first stop only needs a resume
  bool saw_exit_event = false;         // PTRACE_EVENT_EXIT seen
  bool job_stopped = false;            // in a group-stop (SIGSTOP & co.): stays stopped
  // A single-step of ours finished but its SIGTRAP (TRAP_TRACE) is still queued: swallow it.
  bool step_trap_queued = false;
  int64_t step_resumed_ns = 0;  // when a displaced step was resumed (0: none under way)
  uint64_t step_resumed_stop = 0;  // Session::stops_seen_ then: the step's own time is known
                                   // only when no other stop was handled before it ended
  int pending_signal = 0;              // to deliver at detach

 private:
  bool flush_regs();
  // After a failed ptrace `request`: false for ESRCH (gone), else throws std::logic_error.
  bool gone_or_bug(const char* request);
  bool stopped_ = false;  // a stop was taken in (did_wait) and the task not run since
  bool regs_valid_ = false, regs_dirty_ = false;
  user_regs_struct regs_{};
  WaitStatus last_;
};

struct ThreadGroup {
  pid_t tgid = 0;
  std::shared_ptr<AddressSpace> as;
  std::unique_ptr<counters::ProcessCounters> counters;  // null when not measured
  std::map<std::pair<std::string, uint64_t>, symbolizer::LoadedModule> modules;  // (path, start)
  bool measured = true;          // regions and counters are taken in this process
  bool detach_on_first_stop = false;  // an unfollowed fork child: clean and let go
  bool detach_at_exec = false;   // an unfollowed vfork child: shares memory until exec
  bool exiting = false;          // exit() was called: threads' exits are process exit
  bool initial_check_done = false;
  TraceeAddr entry_point;
  std::map<pid_t, std::unique_ptr<Task>> tasks;
  // Span START breakpoints lifted while their span is open (session_spans.cpp).
  std::map<regions::RegionId, std::vector<std::pair<TraceeAddr, ProbeKind>>> suspended_starts;
  // Combined mode: the agent's entry for patched functions (roofprof_patch_entry), once its
  // module is mapped. Until then (or until the entry point, if it never is) the region probes
  // of new modules wait in `deferred` (session_patches.cpp): module key, is_main.
  TraceeAddr patch_entry;
  TraceeAddr patch_span;  // the agent's entry for span patches (roofprof_patch_span)
  std::vector<std::pair<std::pair<std::string, uint64_t>, bool>> deferred;
};

}  // namespace roofprof::tracer
