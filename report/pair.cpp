#include "report/pair.hpp"

#include <fmt/format.h>

#include <map>

#include "common/run_words.hpp"
#include "report/job.hpp"

namespace roofprof::report {
namespace {

bool emulated_only(const result::Run& r) { return r.backend == run_words::kEmul && !r.wall_time_s; }

// A run's rank file with W and Q from `emulated` (the same rank of the same command).
Input combine(const Input& timed, const Input& emulated, std::vector<std::string>& notes) {
  Input out{timed.label + "+" + emulated.label, timed.run};
  std::map<std::pair<std::string, std::string>, const result::Region*> by_name;
  for (const auto& r : emulated.run.regions) by_name[{r.name, r.kind}] = &r;
  for (auto& region : out.run.regions) {
    auto it = by_name.find({region.name, region.kind});
    region.flops.reset();  // W and Q are the emulated job's, or unknown
    region.flops_by_class.clear();
    region.bytes.clear();
    region.instructions.reset();
    for (const char* q : {"flops", "bytes", "instructions"}) region.sources.erase(q);
    if (it == by_name.end()) continue;
    const result::Region& e = *it->second;
    if (e.calls != region.calls)
      notes.push_back(fmt::format("{} rank {}: {} calls timed, {} emulated; its W and Q are the emulated calls'",
                                  region.name, timed.run.job->rank, region.calls, e.calls));
    region.flops = e.flops;
    region.flops_by_class = e.flops_by_class;
    region.bytes = e.bytes;
    region.instructions = e.instructions;
    for (const char* q : {"flops", "bytes", "instructions"})
      if (auto s = e.sources.find(q); s != e.sources.end()) region.sources[q] = s->second;
    std::map<std::string, const result::Group*> groups;
    for (const auto& g : e.groups) groups[g.key] = &g;
    for (auto& g : region.groups) {
      auto eg = groups.find(g.key);
      g.flops = eg == groups.end() ? std::nullopt : eg->second->flops;
      g.bytes = eg == groups.end() ? std::map<std::string, result::Bytes>{} : eg->second->bytes;
    }
  }
  return out;
}

// " 12345" (Open MPI's job id), or what the launcher left out: MPICH's Hydra gives none.
std::string job_id_text(const JobSummary& job) {
  return job.id ? " " + *job.id : fmt::format(" ({} gives no job id)", job.launcher);
}

}  // namespace

std::optional<Paired> pair_timed_and_emulated(const std::vector<Input>& inputs) {
  std::vector<Input> timed, emulated;
  for (const auto& in : inputs) (emulated_only(in.run) ? emulated : timed).push_back(in);
  if (timed.size() < 2 || emulated.size() != timed.size()) return std::nullopt;
  auto tj = recognise_job(timed), ej = recognise_job(emulated);
  if (!tj || !ej || tj->launcher != ej->launcher || tj->size != ej->size || tj->ranks != ej->ranks ||
      timed.front().run.command != emulated.front().run.command)
    return std::nullopt;
  Paired out;
  for (size_t i = 0; i < tj->by_rank.size(); ++i)
    out.ranks.push_back(combine(*tj->by_rank[i], *ej->by_rank[i], out.notes));
  out.notes.insert(out.notes.begin(),
                   fmt::format("two jobs of this command combined rank by rank: T, calls and counters from the {} job{}, "
                               "W and Q from the emulated job{}",
                               timed.front().run.backend, job_id_text(*tj), job_id_text(*ej)));
  return out;
}

}  // namespace roofprof::report
