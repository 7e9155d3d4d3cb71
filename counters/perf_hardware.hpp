#pragma once
// Hardware counters per thread through perf_event: the thread-scope events of an encoded event
// set, opened as the groups plan_event_groups() makes (sized to the PMU's counters; W's events
// in one pinned group where they fit), each group read in one read(2) and scaled for
// multiplexing (scale_group). Counting is user level only.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "counters/backend.hpp"
#include "counters/event_encoding.hpp"
#include "counters/sysfs_pmu.hpp"

namespace roofprof::counters {

// events(): the ids in group order (plan_event_groups() with `w_ids`, W's term ids: their group
// is opened pinned where it fits); events the plan leaves out (no counter left beside W's
// pinned group) are neither opened nor listed. Events on a named sysfs PMU
// (hybrid cpu_core/cpu_atom) get their type from sysfs; a missing PMU is a UserError.
// open() throws UserError with advice when the kernel refuses (ENOENT on a machine or VM
// without a PMU).
std::unique_ptr<Backend> make_perf_hardware_backend(const std::vector<EncodedEvent>& thread_events,
                                                    const std::vector<CounterLimit>& limits,
                                                    const std::string& sysfs_root = perf_system().sysfs_root(),
                                                    const std::set<std::string>& w_ids = {});

}  // namespace roofprof::counters
