#pragma once
// The tracee as ThreadGroup (a process: address space, modules, counters) -> Task (a thread).
#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counters/backend.hpp"
#include "symbolizer/modules.hpp"
#include "tracer/address_space.hpp"
#include "tracer/displaced.hpp"

namespace roofprof::tracer {

struct ThreadGroup;

// A return site watched for one open function instance of one thread.
struct ReturnWatch {
  TraceeAddr site;
  uint64_t entry_sp = 0;
};

struct Task {
  enum class Mode {
    Running,         // nothing special in progress
    DisplacedStep,   // single-stepping the copy of a breakpointed instruction
    LongjmpStep,     // single-stepping through longjmp until the stack pointer jumps up
  };
  pid_t tid = 0;
  ThreadGroup* group = nullptr;
  Mode mode = Mode::Running;
  // DisplacedStep
  TraceeAddr step_at, step_slot;
  Displaced step_insn;
  // LongjmpStep
  uint64_t longjmp_sp0 = 0;
  int longjmp_steps = 0;
  std::vector<ReturnWatch> returns;
  bool awaiting_initial_stop = false;  // new task: its first stop only needs a resume
  bool saw_exit_event = false;         // PTRACE_EVENT_EXIT seen
  int pending_signal = 0;              // to deliver at detach
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
  std::map<regions::RegionId, std::vector<TraceeAddr>> suspended_starts;
};

}  // namespace roofprof::tracer
