#pragma once
// Several result files (runs, --repeat, ranks of an MPI job) as one: regions are matched by
// name and kind, groups by key; calls, times, counters, flops and bytes are summed.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "result/result.hpp"

namespace roofprof::report {

struct Input {
  std::string label;  // the file name as given
  result::Run run;
};

struct JobSummary;  // report/job.hpp

struct Merged {
  result::Run run;                  // the sum (the only input when there is one)
  std::vector<const Input*> inputs; // what was merged, in order
  // "region" or "region\x1fgroup key" whose per-call quartiles were combined from several
  // files: an approximation (result::mix), marked "~" in tables.
  std::set<std::string> approximate_stats;
  std::vector<std::string> notes;   // what the merge did, one line each
  // The inputs were the rank files of one MPI job (report/job.hpp): times are the slowest
  // rank's, not sums. Null otherwise.
  std::shared_ptr<JobSummary> job;
};

// Key of a region or of one of its groups in Merged::approximate_stats and similar maps.
std::string subject_key(const std::string& region, const std::string& group = "");

// `inputs` must outlive the result. One input: its run unchanged, no notes.
Merged merge(const std::vector<Input>& inputs);

}  // namespace roofprof::report
