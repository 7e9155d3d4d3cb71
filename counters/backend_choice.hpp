#pragma once
// `--backend auto|perf|emul|time`: which measurement backend a run uses, decided from probed
// capabilities (probe_capabilities()). Pure function: the lead's `roofprof run` calls it and
// prints `reason`; doctor prints what `auto` would pick.
#include <string>
#include <vector>

#include "counters/capabilities.hpp"

namespace roofprof::counters {

enum class BackendKind {
  perf,  // hardware counters through perf_event (plus software events)
  emul,  // exact counts by emulation under Valgrind (emul/)
  time,  // wall time and software events only
};

std::string to_string(BackendKind kind);  // "perf", "emul", "time"

struct BackendChoice {
  BackendKind kind = BackendKind::time;
  std::string reason;                 // one line: why this backend
  std::vector<std::string> warnings;  // limits of the chosen backend on this machine
};

// Throws UserError (one line, with what to do) when an explicitly requested backend cannot
// work here, e.g. `perf` without a usable PMU, `emul` without valgrind, or an unknown name.
BackendChoice choose_backend(const std::string& requested, const Capabilities& caps);

}  // namespace roofprof::counters
