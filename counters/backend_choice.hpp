#pragma once
// `--backend auto|perf|native|emul|time`: which measurement backend a run uses, decided from probed
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
  native,  // flops counted where they run, by patched code (native/, docs/native.md)
};

std::string to_string(BackendKind kind);  // "perf", "native", "emul", "time" (common/run_words.hpp)

// What --backend asks for: one backend by name, or auto (choose_backend() picks from what this
// machine can count). The option's word is parsed once (runplan::backend_named()).
enum class BackendRequest { automatic, perf, native, emul, time };

std::string to_string(BackendRequest request);  // "auto", or the backend's name

struct BackendChoice {
  BackendKind kind = BackendKind::time;
  std::string reason;                 // one line: why this backend
  std::vector<std::string> warnings;  // limits of the chosen backend on this machine
  // native: valgrind is there for an emulated pass that measures the traffic below L1 (the
  // run decides whether it fits its budget, docs/native.md)
  bool traffic_by_emulation = false;
};

// Throws UserError (one line, with what to do) when an explicitly requested backend cannot
// work here, e.g. `perf` without a usable PMU or `emul` without valgrind.
BackendChoice choose_backend(BackendRequest requested, const Capabilities& caps);

// What `auto` picks where native counting cannot run (`why`: no ptrace to patch the code with):
// emul with valgrind, else perf (software events) or time.
BackendChoice choose_without_native(const Capabilities& caps, const std::string& why);

}  // namespace roofprof::counters
