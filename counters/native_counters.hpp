#pragma once
// Native counting's counts (preload/native_format.h, docs/native.md) as a counting backend: the
// nine flop classes each thread's counting trampolines add to its thread control block, read by
// the tracer from the thread's memory (the block's address is the thread's fs base, read with
// ptrace while the thread is stopped), and by the in-process agent from its own thread
// (thread_groups(): one group of RP_NATIVE_EVENT_TYPE events). Counts are the thread's since the
// backend opened it: a new thread's block may hold what a thread before it on the same stack
// counted.
#include <memory>
#include <optional>

#include "counters/backend.hpp"

namespace roofprof::counters {

std::unique_ptr<Backend> make_native_backend();

// Where `events` (a backend's) hold native counting's classes: the first one's index, or -1.
int native_events_at(const std::vector<EventInfo>& events);
// Whether event `e` of `events` is one of native counting's classes.
bool is_native_class(const std::vector<EventInfo>& events, size_t e);
// W from the classes at `at` of `values` (native_events_at): their sum; nullopt when one is
// missing or not counted.
std::optional<double> native_w(const std::vector<double>& values, int at);

}  // namespace roofprof::counters
