#pragma once
// The rank files of one MPI job (`roofprof run` under mpirun or srun: each result has a `job`
// member) recognised among the report's inputs, the job's semantics for the merged run (W, Q,
// calls and counters summed over the ranks; a region's time is the slowest rank's), and the
// spread of each region over the ranks.
#include <optional>
#include <string>
#include <vector>

#include "report/merge.hpp"

namespace roofprof::report {

using Spread = result::Spread;  // one quantity over the ranks

struct RankSpread {  // one region over the ranks (a rank without the region counts as 0)
  std::string region, kind;
  std::optional<Spread> time_s;  // null when a rank did not measure T (an emulated rank)
  Spread calls;
  std::optional<Spread> flops;  // null when a rank did not measure W
};

struct JobSummary {
  std::string launcher;
  std::optional<std::string> id;
  int size = 0;                       // ranks in the job
  std::vector<int> ranks;             // ranks whose files were given, ascending
  std::vector<int> missing;           // ranks of the job without a file
  std::vector<std::string> hosts;     // distinct host names, in rank order
  std::vector<const Input*> by_rank;  // the inputs in rank order
  std::vector<RankSpread> spread;     // one per region of the merged run, in its order
};

// The inputs are the ranks of one job when there are two or more, each has a `job` member with
// the same launcher, size and id, they ran the same command, and no rank comes twice. nullopt
// otherwise (they are merged as runs). `inputs` must outlive the result.
std::optional<JobSummary> recognise_job(const std::vector<Input>& inputs);

// Applies the job's semantics to `merged` (the sums of merge()): the time of each region and
// group becomes the maximum over the ranks, the wall time the longest rank's; fills
// job.spread. Returns the notes that say so.
std::vector<std::string> apply_job(JobSummary& job, result::Run& merged);

}  // namespace roofprof::report
