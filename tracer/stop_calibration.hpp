#pragma once
// The kernel's round trip of a ptrace stop, timed on single steps (docs/methodology.md, "What
// probes cost"): the samples ProbeBudget::note_step() takes at the start of a run.
#include <cstdint>
#include <vector>

namespace roofprof::tracer {

class Task;

// `n` single steps of `t`, stopped at its exec stop (the dynamic linker's first instructions,
// which run next anyway), each timed. A stop other than the step's SIGTRAP ends them; its
// signal is kept in t.pending_signal to be delivered later.
std::vector<int64_t> time_steps(Task& t, int n);
// The same on a child of roofprof's own looping on one instruction (attached, or a static
// program: the program's threads may sit in system calls a step would wait for). It waits on
// that child alone (waitpid on its pid), never on the session's tracees.
std::vector<int64_t> time_steps_apart(int n);

}  // namespace roofprof::tracer
