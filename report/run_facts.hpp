#pragma once
// Sentences about a run and its regions, shared by the summary and the table.
#include <optional>
#include <string>

#include "result/result.hpp"

namespace roofprof::report {

// The command as a shell would accept it: ./app 'arg with space'.
std::string command_line(const result::Run& run);
// "exited with status 0", "killed by signal 11 (SIGSEGV)", "detached (still running)", ...
std::string outcome(const result::Run& run);
// "./app 1 2: exited with status 0; wall 1.23 s; backend perf, scope process[, 3 runs][; simulated
// caches ...]"
std::string run_headline(const result::Run& run);
// "L1 48K/12, L2 1M/16, L3 32M/16 non-inclusive": the hierarchy an emulated run simulated (size/ways;
// the last level's inclusion). Needs run.simulated_caches not empty.
std::string simulated_caches_text(const result::Run& run);
// Backend that produced `quantity` of a region: sources["counters.EVENT"] falls back to
// sources["counters"]. Null when the result does not say.
std::optional<std::string> source_of(const result::Region& r, const std::string& quantity);
// Instances closed other than by "return" / "span_stop".
uint64_t abnormal_count(const result::Region& r);
// "3 of 100 instances closed abnormally: 2 longjmp, 1 crash"; "" when none.
std::string abnormal_closes(const result::Region& r);
// Flops per second of the region's total time; null when flops or the time is unknown/zero.
std::optional<double> flops_per_second(const result::Region& r);
// read + write at `level`; null when either is unknown or the level is absent.
std::optional<double> total_bytes(const result::Region& r, const std::string& level);
// Counters measured in nanoseconds (perf's task-clock and cpu-clock).
bool is_nanosecond_event(const std::string& event);

}  // namespace roofprof::report
