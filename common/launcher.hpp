#pragma once
// Parallel launchers (mpirun, srun, Hydra): which rank of which job this process is, read from
// the environment the launcher gives each rank, and the -o name that keeps ranks apart.
#include <functional>
#include <optional>
#include <string>

namespace roofprof {

// Reads one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

struct LaunchInfo {
  std::string launcher;               // "openmpi", "pmix", "pmi" (MPICH/Hydra), "slurm"
  int rank = 0;
  std::optional<int> size;            // null when the launcher does not say
  std::optional<std::string> job_id;  // null when the launcher does not say
};

// The first launcher whose rank variable is set, in this order: Open MPI
// (OMPI_COMM_WORLD_RANK/SIZE), PMIx (PMIX_RANK), PMI (PMI_RANK/SIZE: MPICH Hydra, Intel MPI),
// Slurm (SLURM_PROCID/SLURM_NTASKS). An mpirun inside a Slurm allocation is thus Open MPI's
// ranks, not the batch step's; srun --mpi=pmix (PMIX_RANK equal to SLURM_PROCID) is Slurm. nullopt outside a launcher. Throws UserError when a variable is
// set but is not a number.
std::optional<LaunchInfo> detect_launcher(const EnvLookup& env);

struct OutputNameFacts {
  std::optional<LaunchInfo> launch;
  std::string host;
  int pid = 0;
};

// Expands -o's placeholders: %r rank, %s job size, %h host, %p pid, %j job id, %% a '%'.
// Under a launcher a name without %r gets ".RANK" before its extension ("prof.json" ->
// "prof.3.json") so that ranks do not overwrite one file. Throws UserError for an unknown
// placeholder, or one whose value is unknown (%r outside a launcher, %s or %j the launcher
// does not give).
std::string expand_output_name(const std::string& pattern, const OutputNameFacts& facts);

}  // namespace roofprof
