#pragma once
// Two jobs of one MPI command, one timed and one emulated, as one: under a launcher without a
// PMU, `roofprof run --backend emul` gives each rank its exact W and Q but no T (its one run is
// emulated), and `--backend time` gives T; the report combines them rank by rank and region by
// region: T, calls and counters from the timed job, W and Q from the emulated one
// (docs/mpi.md, "Exact W with real T").
#include <optional>
#include <string>
#include <vector>

#include "report/merge.hpp"

namespace roofprof::report {

struct Paired {
  std::vector<Input> ranks;        // one combined run per rank, as the timed job's files
  std::vector<std::string> notes;  // what was combined, and calls that differ
};

// The inputs are exactly the rank files of two jobs of the same command, launcher and size with
// the same ranks, where one job's runs are timed and the other's emulated only (backend emul,
// no wall time). nullopt otherwise (the inputs are merged as they are).
std::optional<Paired> pair_timed_and_emulated(const std::vector<Input>& inputs);

}  // namespace roofprof::report
