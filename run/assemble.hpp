#pragma once
// Aggregated region instances + the regions the planner created -> the result file's regions.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "counters/backend.hpp"
#include "counters/event_set.hpp"
#include "counters/w_placement.hpp"
#include "run/instances.hpp"
#include "probes/plan.hpp"
#include "regions/aggregate.hpp"
#include "result/result.hpp"

namespace roofprof::run {

// `hardware`: the event set whose formulas give W and Q from the counters (perf backend), or null;
// `w`: how its groups hold W (exact when whole and pinned), whose reason labels an estimate.
std::vector<result::Region> assemble_regions(const probes::Planner& planner, const regions::Aggregator& agg,
                                             const std::vector<counters::EventInfo>& events,
                                             const std::string& counter_source,
                                             const counters::EventSet* hardware = nullptr,
                                             const counters::WPlacement* w = nullptr);
// The regions of an emulated run that no clock timed (an MPI rank's only run, the survey's
// emulated pass): time null, no time source, `calls_source` for their calls.
std::vector<result::Region> untimed_regions(const probes::Planner& planner, const regions::Aggregator& agg,
                                            const std::string& calls_source);

// An instance's W and Q from its deltas through `hardware`'s formulas, or native counting's classes
// where the events hold them (null `hardware` and no native counting: none,
// W and Q stay unknown); its own thread's part and, for the anchor of scope=process, the others'.
InstanceQuantities hardware_instance_quantities(const std::vector<counters::EventInfo>& events,
                                                const counters::EventSet* hardware);

// sources.flops for W from counters: "perf" when exact (W's groups pinned whole: `w->exact`,
// whatever other groups did); "perf (estimate: scaled, ...)" with `w`'s reason when counters were
// multiplexed and W is not pinned; "perf: not counted (...)" with the reason when W is null.
std::string flops_source(bool multiplexed, bool not_counted, const counters::WPlacement* w);
// `source` (flops_source's) with "lower bound: N % of the region's time ran on PMU, ..." added.
std::string lower_bound_source(const std::string& source, const counters::UncountedCoreTime& other);

// The region's threads from `a` (result::ThreadPart, written for two or more threads), the work
// of threads without a call, and the balance; `flops` turns counter totals into W (null: not
// measured); `timed`: the calls' times are real (a native run's).
void set_thread_parts(result::Region& r, const regions::Aggregate& a,
                      const std::function<std::optional<double>(const std::vector<double>&)>& flops, bool timed);

// Warnings for the result about how names resolved: regions never found (a region found late
// has no "not found yet" left), functions left out in system libraries.
std::vector<std::string> planner_notes(const probes::Planner& planner);

}  // namespace roofprof::run
