#pragma once
// What a program started with the in-process agent needs: the agent's path, its settings
// (docs/preload.md, "Environment variables"), a directory for its record files, and an
// environment whose ROOFPROF_AGENT_PID the child fills in after fork. Shared by --no-ptrace
// (run/agent_run.cpp) and the combined mode (run/combined_run.cpp).
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "counters/backend.hpp"
#include "preload/agent_events.hpp"
#include "probes/plan.hpp"
#include "supervisor/run.hpp"

namespace roofprof::run {

// <bin>/../lib/roofprof/libroofprof-preload.so; UserError when missing.
std::string agent_library();

// What the agent counts of the backend's events (ROOFPROF_AGENT_EVENTS and the snapshots' layout);
// UserError (one line) for events it cannot count (preload/agent_events.hpp).
preload::AgentEvents agent_events(const counters::Backend& backend);
// The agent can count the backend's events in this run (the combined mode's condition).
bool agent_counts_events(const counters::Backend& backend);
// ROOFPROF_AGENT_REGIONS: "SPEC:PATTERN" lines of the function specs (span specs are skipped).
std::string regions_setting(const probes::Planner& planner);

// ROOFPROF_AGENT_* settings and LD_PRELOAD (agent first, then any existing value). Throws
// UserError for events the agent cannot count.
std::map<std::string, std::string> agent_settings(const supervisor::RunOptions& so, const counters::Backend& backend,
                                                  const probes::Planner& planner, const std::string& dir);

// A directory for the record files ($TMPDIR/roofprof-agent-XXXXXX), removed afterwards.
struct RecordDir : TempDir {
  RecordDir() : TempDir("roofprof-agent", "the agent's records") {}
};

// Our environment with `set` replacing (and LD_PRELOAD, ROOFPROF_AGENT_PID dropped from) it.
// The ROOFPROF_AGENT_PID entry has room for the child to write its own pid after fork.
class ChildEnv {
 public:
  explicit ChildEnv(const std::map<std::string, std::string>& set);
  // For the child after fork (async-signal-safe): writes its pid, returns envp.
  char* const* for_child(pid_t pid);

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
  size_t pid_entry_ = 0;
};

}  // namespace roofprof::run
