#pragma once
// Runs one system call inside a stopped tracee thread (used to map scratch pages).
#include <sys/types.h>

#include <array>
#include <optional>

#include "tracer/memory.hpp"

namespace roofprof::tracer {

// Executes syscall `nr` with `args` in stopped thread `tid` and returns its result (rax), or
// nullopt if the thread went away. Signals that arrive meanwhile are appended to *deferred
// so the caller can deliver them later. Registers and code are restored.
std::optional<long> inject_syscall(pid_t tid, const TraceeMemory& mem, long nr, const std::array<long, 6>& args,
                                   std::vector<int>* deferred);

}  // namespace roofprof::tracer
