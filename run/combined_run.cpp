#include "run/combined_run.hpp"

#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/program.hpp"
#include "common/strings.hpp"
#include "preload/env_format.h"
#include "preload/probe_rules.h"
#include "preload/sites_format.h"
#include "symbolizer/elf_file.hpp"
#include "symbolizer/got_only.hpp"

namespace roofprof::run {

CombinedAgent::CombinedAgent(const supervisor::RunOptions& so, const counters::Backend& backend,
                             probes::Planner& planner, regions::Tracker& tracker,
                             std::function<bool(regions::RegionId)> needs_arguments, bool patch)
    : planner_(planner),
      needs_arguments_(std::move(needs_arguments)),
      patch_(patch),
      env_([&] {
        auto settings = agent_settings(so, backend, planner, dir_.path());
        settings.insert_or_assign(RP_ENV_AGENT_SITES, std::string("1"));  // hook only what take() gave the agent
        return settings;
      }()),
      collector_(dir_.path(), planner, backend.events().size(), tracker, true, agent_events(backend).timed) {
  collector_.key_calls(*so.observer);
  collector_.skip_if_frequent(so.agent_skip_if_frequent, so.agent_skip_factor);
}

void CombinedAgent::attach(tracer::SessionOptions& so) {
  so.agent = this;
}

char* const* CombinedAgent::child_env() { return env_.for_child(::getpid()); }

std::set<uint64_t> CombinedAgent::take(pid_t tgid, const symbolizer::LoadedModule& m, bool is_main,
                                       const std::vector<probes::PlannedProbe>& planned) {
  if (is_main) sites_[tgid].clear(), ifunc_names_[tgid].clear();  // a new image (launch or exec)
  // The executable's functions are called directly, not through the GOT.
  bool never = is_main || tracer::agent_never_measures(m.path);
  std::set<uint64_t> candidates, vetoed;
  for (const auto& p : planned) {
    if (p.role != probes::SiteRole::Entry) continue;
    candidates.insert(p.address);
    if (needs_arguments_ && needs_arguments_(p.region)) vetoed.insert(p.address);
    if (rp_keeps_return_address(p.symbol.c_str())) vetoed.insert(p.address);  // setjmp, vfork: breakpoints
  }
  for (uint64_t a : vetoed) candidates.erase(a);
  std::set<uint64_t> taken;
  if (!never && !candidates.empty()) {
    try {
      taken = symbolizer::only_called_through_got(m.elf ? m.elf->path() : m.path, candidates);
    } catch (const UserError&) {
      taken.clear();  // unreadable now: breakpoints, as without the agent
    }
  }
  for (const auto& p : planned) {
    if (p.role == probes::SiteRole::Entry && taken.count(p.address)) {
      by_agent_.insert(p.region);
      sites_[tgid].insert(m.bias + p.address);
      // An IFUNC's calls reach the implementation the dynamic linker chose, not the resolver
      // at p.address: the agent allows it by name.
      if (p.ifunc) ifunc_names_[tgid].insert(p.symbol);
    } else {
      by_breakpoint_.insert(p.region);
    }
  }
  return taken;
}

std::optional<std::string> CombinedAgent::patch_refusal(const std::vector<regions::RegionId>& regions) const {
  if (!patch_) return std::string("--no-patch");
  if (needs_arguments_ && std::any_of(regions.begin(), regions.end(), needs_arguments_))
    return std::string("its calls are grouped by their arguments, read at each call's entry: --group-by args is the "
                       "default for functions whose signature roofprof knows, --group-by caller keeps it in-process");
  return std::nullopt;
}

uint32_t CombinedAgent::patched(const std::vector<regions::RegionId>& regions) {
  by_patch_.insert(regions.begin(), regions.end());
  return collector_.add_patch(regions);
}

void CombinedAgent::publish(pid_t tgid) {
  std::string path = fmt::format("{}/{}" RP_SITES_SUFFIX, dir_.path(), tgid);
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (uint64_t a : sites_[tgid]) out << fmt::format("{:x}\n", a);
    for (const std::string& name : ifunc_names_[tgid]) out << RP_SITES_IFUNC_MARK << name << "\n";
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);  // whole or not at all when the agent reads it
}

void CombinedAgent::forked(pid_t parent, pid_t child) {
  sites_[child] = sites_[parent];
  ifunc_names_[child] = ifunc_names_[parent];
  publish(child);
}

size_t CombinedAgent::wait_and_drain(const std::function<bool()>& quiet) { return collector_.wait_and_drain(quiet); }
void CombinedAgent::catch_child_signal(bool on) {
  if (on) child_signal_ = collector_.wake_on_child();
  else child_signal_.reset();
}
size_t CombinedAgent::drain() { return collector_.drain_published(); }
// A slot's writer is between two stores, unless a ptrace stop holds it (then we give up). It can
// be preempted for a whole time slice or more: 10 ms lost 1-2 of 16,000 calls at a load of 4-5 on
// 2 cores (PreloadSemantics.EightThreadsCallingKTimes), so 250 ms. The wait ends as soon as the
// slots are written; the full wait happens only when a stop holds the writer.
size_t CombinedAgent::drain_exiting(pid_t tgid) { return collector_.drain_claimed(tgid, 250'000'000); }

void CombinedAgent::root_ended(pid_t pid, int64_t end_ns, int term_signal) {
  root_ = pid;
  collector_.root_ended(pid, end_ns, term_signal);
}

void CombinedAgent::finish(supervisor::RunOutcome& out) {
  collector_.finish(monotonic_ns());
  out.agent_boundary = collector_.boundary_cost();
  out.agent_reader = collector_.reader_cost();
  for (auto& w : collector_.warnings()) out.warnings.push_back(std::move(w));
  if (!collector_.complete()) out.complete = false;
  std::string unseen;
  const auto& infos = planner_.regions();
  for (regions::RegionId id : by_agent_) {
    if (by_breakpoint_.count(id) || collector_.hooked().count(id)) continue;
    unseen += (unseen.empty() ? "'" : ", '") + infos.at(id).name + "'";
  }
  if (!unseen.empty()) {
    bool started = root_ && collector_.has_file_of(root_);
    out.warnings.push_back(
        started ? "measured by the in-process agent but never called through the dynamic linker (only through a "
                  "pointer, e.g. from dlsym), so their calls were not seen and their zero counts are not "
                  "measurements; run with --no-preload to measure them with breakpoints: " + unseen
                : "the in-process agent did not start in the program (LD_PRELOAD ignored, e.g. a setuid program), "
                  "so the calls of these regions were not seen; run with --no-preload: " + unseen);
  }
}

void CombinedAgent::add_mechanisms(std::map<regions::RegionId, std::set<std::string>>& out) const {
  for (regions::RegionId id : by_agent_) out[id].insert("agent");
  for (regions::RegionId id : by_breakpoint_) out[id].insert("breakpoint");
  for (regions::RegionId id : by_patch_) out[id].insert("patch");
}

runplan::Program program_facts(const std::string& program) {
  runplan::Program facts;
  std::string path = find_in_path(program);
  if (path.empty()) return facts;
  char head[2] = {0, 0};
  std::ifstream(path, std::ios::binary).read(head, 2);
  if (head[0] == '#' && head[1] == '!') return facts;
  try {
    auto elf = symbolizer::ElfFile::open(path);
    facts.statically_linked = !elf->has_interp();
    if (elf->has_interp()) {
      const std::string& interp = elf->interpreter();
      if (!interp.empty() && !path_basename(interp).starts_with("ld-linux"))
        facts.not_glibc = "its dynamic linker is " + interp + ", not glibc's";
    } else {
      // glibc's static start-up sets up its thread control block; musl's and Go's do not have it.
      const auto& fns = elf->functions();
      const bool glibc = std::any_of(fns.begin(), fns.end(), [](const auto& s) { return s.name == "__libc_setup_tls"; });
      if (!glibc) facts.not_glibc = "this statically linked program has no glibc in it";
    }
  } catch (const UserError&) {
  }
  return facts;
}

}  // namespace roofprof::run
