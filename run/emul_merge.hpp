#pragma once
// The two-run method (like Advisor's survey and FLOP runs): a native traced run gives time and
// software counters, an emulated run of the same program gives exact W and Q; they are merged
// per region. When call counts differ between the runs the merge says so and uses totals.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "emul/emul.hpp"
#include "probes/plan.hpp"
#include "result/result.hpp"

namespace roofprof::run {

// The emulation tool's counters (emul::Result::counters names, in order) read as quantities.
struct EmulatedQuantities {
  std::optional<double> instructions;
  double flops = 0;                              // sum of the flops_* classes
  std::map<std::string, double> flops_by_class;  // "dp_256" -> flops
  std::map<std::string, result::Bytes> bytes;    // "L1", "L2", ..., "DRAM" -> read/write
};
EmulatedQuantities emulated_quantities(const std::vector<std::string>& names, const std::vector<double>& counts);

// The emulation tool's probes: every site the native run placed, by region.
std::vector<probes::PlannedProbe> emulation_probes(const probes::Planner& planner);
// One line for each site emulation_probes() leaves out (IFUNC entries).
std::vector<std::string> emulation_left_out(const probes::Planner& planner);

// Why the emulated pass does not describe the run the native pass measured (null: it does): the
// program died of a signal under emulation that it did not die of natively (a seccomp filter
// that kills valgrind's system calls), or exited with another status (valgrind's own limits,
// such as its thread table). `log_error`: valgrind's first error line, quoted when present.
std::optional<std::string> emulated_pass_cut_short(const emul::Result& emulated, std::optional<int> native_exit,
                                                   std::optional<int> native_signal);

// One warning per region the native run saw called: its W and Q (or, with `traffic_only`, its
// bytes) were not measured, and why. The regions keep them null.
std::vector<std::string> unmeasured_region_warnings(const std::vector<result::Region>& regions, bool traffic_only,
                                                    const std::string& why);

// Adds W (flops, flops_by_class), Q (bytes per level) and instructions from the emulated run
// to `regions` (in planner order), with their sources. Returns warnings (call-count mismatches).
// `traffic_only` (native counting's emulated pass): W stays the native run's, a difference is
// said.
std::vector<std::string> merge_emulated(std::vector<result::Region>& regions, const emul::Result& emulated,
                                        bool cache_sim, bool traffic_only = false);

// The cache hierarchy the emulated run simulated, as the result file records it; empty without
// cache simulation.
std::vector<result::SimulatedCache> simulated_caches(const emul::Result& emulated);

// Records in `run` the hierarchy the emulated run simulated and where it came from
// (`simulated_caches_source`: "option" (--cache), "measured" (the host's resized to the hierarchy
// `roofprof ceilings` measured) or "reported" (the host's)), with a warning when a reported last
// level is implausible (emul::implausible_last_level) and no measurement found its knee
// (`last_level_measured`).
void record_simulated_caches(const emul::Result& emulated, const std::string& source, bool last_level_measured,
                             result::Run& run);

// run --annotate: each function region gets the instructions of its functions (the symbols at its
// entry sites, from their first byte to their size) with their counts.
void attach_annotation(std::vector<result::Region>& regions, const std::vector<emul::InstructionCounts>& counts);

}  // namespace roofprof::run
