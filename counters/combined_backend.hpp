#pragma once
// Several backends as one: events() is their concatenation, open() opens each for the thread
// and read() concatenates the values (multiplexed if any part is). Used for software events
// (task-clock, page-faults, ...) plus hardware events in one ProcessCounters.
#include <memory>
#include <vector>

#include "counters/backend.hpp"

namespace roofprof::counters {

// name(): the first non-"time" part's name ("perf"), else "time".
std::unique_ptr<Backend> make_combined_backend(std::vector<std::unique_ptr<Backend>> parts);

}  // namespace roofprof::counters
