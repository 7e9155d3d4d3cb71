#include <algorithm>
#include "common/launcher.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "common/error.hpp"

namespace roofprof {
namespace {

struct LauncherVars {
  const char* launcher;
  const char* rank;
  const char* size;                  // nullptr: the launcher does not export one
  std::initializer_list<const char*> job_ids;  // first one set wins
};

// Order matters: see detect_launcher().
const LauncherVars kLaunchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     {"OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "SLURM_JOB_ID"}},
    {"pmix", "PMIX_RANK", nullptr, {"PMIX_NAMESPACE", "SLURM_JOB_ID"}},
    {"pmi", "PMI_RANK", "PMI_SIZE", {"SLURM_JOB_ID"}},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", {"SLURM_JOB_ID"}},
};

int non_negative(const std::string& name, const std::string& value) {
  int v = -1;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < 0)
    throw UserError(fmt::format("{}='{}' is not a rank or job size (expected a number 0 or more); "
                                "unset it or run under the launcher that sets it",
                                name, value));
  return v;
}

// A placeholder's value from the environment or the host stays one file-name component: '/'
// becomes '_', and so does a name of dots only ("..") or an empty one. `-o DIR/%j.json` cannot
// leave DIR whatever SLURM_JOB_ID says.
std::string one_component(std::string v) {
  for (char& c : v)
    if (c == '/' || c == '\0') c = '_';
  if (v.find_first_not_of('.') == std::string::npos) v.assign(std::max<size_t>(v.size(), 1), '_');
  return v;
}

std::string value_of(char placeholder, const std::string& pattern, const OutputNameFacts& f) {
  auto unknown = [&](const char* what) {
    return UserError(fmt::format(
        "-o {}: %{} needs {}, which {}; remove %{} from the name", pattern, placeholder, what,
        f.launch ? "the launcher (" + f.launch->launcher + ") does not give"
                 : std::string("is only known under a launcher (mpirun, srun: OMPI_COMM_WORLD_RANK, "
                               "PMI_RANK or SLURM_PROCID unset)"),
        placeholder));
  };
  switch (placeholder) {
    case 'r':
      if (!f.launch) throw unknown("the MPI rank");
      return std::to_string(f.launch->rank);
    case 's':
      if (!f.launch || !f.launch->size) throw unknown("the job size");
      return std::to_string(*f.launch->size);
    case 'j':
      if (!f.launch || !f.launch->job_id) throw unknown("the job id");
      return one_component(*f.launch->job_id);
    case 'h': return one_component(f.host);
    case 'p': return std::to_string(f.pid);
    case '%': return "%";
  }
  throw UserError(fmt::format("-o {}: unknown placeholder %{}; use %r (rank), %s (job size), %h "
                              "(host), %p (pid), %j (job id) or %% for a '%'",
                              pattern, placeholder));
}

// "prof.json" -> "prof.%r.json", "dir.d/prof" -> "dir.d/prof.%r".
std::string with_rank(const std::string& pattern) {
  const size_t slash = pattern.find_last_of('/');
  const size_t dot = pattern.find_last_of('.');
  const size_t base = slash == std::string::npos ? 0 : slash + 1;
  if (dot == std::string::npos || dot <= base) return pattern + ".%r";
  return pattern.substr(0, dot) + ".%r" + pattern.substr(dot);
}

bool has_rank_placeholder(const std::string& pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (pattern[i + 1] == 'r') return true;
    ++i;  // "%%" and other placeholders
  }
  return false;
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    if (const char* v = std::getenv(name.c_str())) return std::string(v);
    return std::nullopt;
  };
}

std::optional<LaunchInfo> detect_launcher(const EnvLookup& env) {
  for (const auto& l : kLaunchers) {
    auto rank = env(l.rank);
    if (!rank) continue;
    // srun --mpi=pmix sets PMIX_RANK too: the same rank, but Slurm's variables also give the
    // job size and the job id users know.
    if (std::string_view(l.launcher) == "pmix" && env("SLURM_PROCID") == rank) continue;
    LaunchInfo info;
    info.launcher = l.launcher;
    info.rank = non_negative(l.rank, *rank);
    if (l.size)
      if (auto size = env(l.size)) info.size = non_negative(l.size, *size);
    for (const char* name : l.job_ids)
      if (auto id = env(name); id && !id->empty()) {
        info.job_id = *id;
        break;
      }
    return info;
  }
  return std::nullopt;
}

std::string expand_output_name(const std::string& pattern, const OutputNameFacts& facts) {
  const std::string full =
      facts.launch && !has_rank_placeholder(pattern) ? with_rank(pattern) : pattern;
  std::string out;
  for (size_t i = 0; i < full.size(); ++i) {
    if (full[i] != '%') {
      out += full[i];
      continue;
    }
    if (i + 1 == full.size())
      throw UserError(fmt::format("-o {}: a '%' ends the name; write %% for a '%'", pattern));
    out += value_of(full[++i], pattern, facts);
  }
  return out;
}

}  // namespace roofprof
