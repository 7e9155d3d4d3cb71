#include "report/job.hpp"

#include "result/balance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace roofprof::report {
namespace {

using RegionKey = std::pair<std::string, std::string>;  // name, kind

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size() && i < 8; ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) out += fmt::format(", ... ({} in all)", ranks.size());
  return out;
}

}  // namespace

std::optional<JobSummary> recognise_job(const std::vector<Input>& inputs) {
  if (inputs.size() < 2) return std::nullopt;
  const result::Run& first = inputs.front().run;
  if (!first.job || !first.job->size) return std::nullopt;
  JobSummary job;
  job.launcher = first.job->launcher;
  job.id = first.job->id;
  job.size = *first.job->size;
  std::set<int> seen;
  for (const auto& in : inputs) {
    const auto& j = in.run.job;
    if (!j || j->launcher != job.launcher || j->size != first.job->size || j->id != job.id ||
        in.run.command != first.command || !seen.insert(j->rank).second)
      return std::nullopt;
    job.by_rank.push_back(&in);
  }
  std::sort(job.by_rank.begin(), job.by_rank.end(), [](const Input* a, const Input* b) {
    return a->run.job->rank < b->run.job->rank;
  });
  for (const auto* in : job.by_rank) {
    job.ranks.push_back(in->run.job->rank);
    const std::string& host = in->run.host.hostname;
    if (std::find(job.hosts.begin(), job.hosts.end(), host) == job.hosts.end())
      job.hosts.push_back(host);
  }
  for (int r = 0; r < job.size; ++r)
    if (!seen.count(r)) job.missing.push_back(r);
  return job;
}

std::vector<std::string> apply_job(JobSummary& job, result::Run& merged) {
  // Per region (and group): each rank's time, calls and flops, in rank order.
  std::map<RegionKey, size_t> index;
  for (size_t i = 0; i < merged.regions.size(); ++i)
    index[{merged.regions[i].name, merged.regions[i].kind}] = i;
  const size_t ranks = job.by_rank.size();
  std::vector<std::vector<double>> time(merged.regions.size(), std::vector<double>(ranks, 0.0));
  std::vector<std::vector<double>> calls = time, flops = time;
  std::vector<bool> flops_known(merged.regions.size(), true), time_known = flops_known;
  std::vector<std::map<std::string, double>> group_max(merged.regions.size());
  for (size_t k = 0; k < ranks; ++k) {
    std::vector<bool> present(merged.regions.size(), false);
    for (const auto& r : job.by_rank[k]->run.regions) {
      const size_t i = index.at({r.name, r.kind});
      present[i] = true;
      if (r.time_s) time[i][k] = *r.time_s;
      else time_known[i] = false;
      calls[i][k] = double(r.calls);
      if (r.flops) flops[i][k] = *r.flops;
      else flops_known[i] = false;
      for (const auto& g : r.groups) group_max[i][g.key] = std::max(group_max[i][g.key], g.time_s);
    }
    for (size_t i = 0; i < present.size(); ++i)
      if (!present[i]) flops_known[i] = false;
  }
  job.spread.clear();
  for (size_t i = 0; i < merged.regions.size(); ++i) {
    auto& region = merged.regions[i];
    region.time_s = std::nullopt;
    if (time_known[i]) region.time_s = *std::max_element(time[i].begin(), time[i].end());
    for (auto& g : region.groups) g.time_s = group_max[i][g.key];
    RankSpread s{region.name, region.kind, std::nullopt, result::spread_of(calls[i]), std::nullopt};
    if (time_known[i]) s.time_s = result::spread_of(time[i]);
    if (flops_known[i]) s.flops = result::spread_of(flops[i]);
    job.spread.push_back(std::move(s));
  }
  merged.wall_time_s = 0.0;  // the slowest rank's; null when a rank was not timed
  for (const auto* in : job.by_rank) {
    if (!in->run.wall_time_s) {
      merged.wall_time_s.reset();
      break;
    }
    merged.wall_time_s = std::max(*merged.wall_time_s, *in->run.wall_time_s);
  }
  merged.repeat = job.by_rank.front()->run.repeat;

  std::vector<std::string> notes;
  notes.push_back(fmt::format(
      "MPI job {}({}): {} of {} ranks on {} host{}; calls, flops, bytes and counters are summed "
      "over the ranks, a region's time is the slowest rank's (max), so GFlop/s is the job's "
      "rate (W summed / T of the slowest rank); per-call quartiles mix every rank's calls (~)",
      job.id ? *job.id + " " : "", job.launcher, job.ranks.size(), job.size, job.hosts.size(),
      job.hosts.size() == 1 ? "" : "s"));
  if (!job.missing.empty())
    notes.push_back(fmt::format("ranks without a result file: {}; the sums leave them out",
                                rank_list(job.missing)));
  if (job.hosts.size() > 1)
    notes.push_back("the roofs are one host's: the job's points can exceed them; --per-rank "
                    "shows each rank against them");
  return notes;
}

}  // namespace roofprof::report
