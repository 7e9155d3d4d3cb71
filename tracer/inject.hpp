#pragma once
// Runs one system call inside a stopped tracee thread (used to map scratch pages).
#include <array>
#include <optional>
#include <vector>

#include "tracer/task.hpp"

namespace roofprof::tracer {

// Executes syscall `nr` with `args` in stopped task `t` and returns its result (rax), or
// nullopt if the thread went away. Signals that arrive meanwhile are appended to *deferred
// so the caller can deliver them later. Registers and code are restored (the registers are
// written back at the task's next resume).
std::optional<long> inject_syscall(Task& t, const TraceeMemory& mem, long nr, const std::array<long, 6>& args,
                                   std::vector<int>* deferred);

}  // namespace roofprof::tracer
