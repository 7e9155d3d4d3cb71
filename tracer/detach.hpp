#pragma once
// What detaching a tracee involves, task by task (Session::begin_detach drives it): each task,
// once stopped, is put back on an original instruction with no SIGTRAP of ours left queued for
// it and parked (settle_for_detach, park); when every task is parked, each process's probes are
// removed, its original bytes restored and its tasks detached (detach_group).
#include "tracer/task.hpp"

namespace roofprof::tracer {

// A task in the middle of a displaced step goes back to a clean instruction: the breakpoint if
// the copy has not run (a signal handler, if any, returns there and the probe is taken again:
// probes are idempotent), else the instruction after it (the step's own SIGTRAP, still queued,
// is then swallowed). False: the task was not stepping a displaced copy. Also on a signal that
// interrupts a step (Session::on_signal).
bool leave_displaced_step(Task& t);
// An int3 trap at `at` is ours: a breakpoint is there, or was when the task trapped on it (the
// byte at `at` is no longer int3). Also for a breakpoint removed meanwhile (Session::on_breakpoint).
bool is_our_trap(Task& t, TraceeAddr at);
// Puts a task stopped with `ws` on an original instruction; a signal meant for the program is
// kept (t.pending_signal) for PTRACE_DETACH. A SIGTRAP of ours is never delivered.
void settle_for_detach(Task& t, WaitStatus ws);
// After settle_for_detach: true when the task is parked (state Detaching). False when a SIGTRAP
// of ours may still be queued for it: it was continued, the trap stops it again at once and
// that stop is settled in turn.
bool park(Task& t);
// Every task of `g` parked: its probes removed (original bytes back), its threads' counters
// closed, each task detached with its pending signal.
void detach_group(ThreadGroup& g);

}  // namespace roofprof::tracer
