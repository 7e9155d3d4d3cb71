// Modules as they load: probe placement, the runtime hooks roofprof needs, scratch pages.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <set>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/strings.hpp"
#include "tracer/inject.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// When the program running now is a shell or a launcher, regions are probably in a program it
// starts in a child process: a hint for "not found" messages.
std::string launcher_hint(pid_t tgid, bool follow_fork) {
  if (follow_fork) return "";
  char exe[4096];
  ssize_t n = readlink(("/proc/" + std::to_string(tgid) + "/exe").c_str(), exe, sizeof exe - 1);
  std::string base(path_basename(n > 0 ? std::string_view(exe, size_t(n)) : std::string_view()));
  for (const char* l : {"sh", "bash", "dash", "zsh", "ksh", "env", "mpirun", "mpiexec", "orterun", "prterun", "srun",
                        "nohup", "timeout", "time", "xargs", "make"})
    if (base == l)
      return "; the program running is " + base + ", a script or launcher: if it starts the program in a child "
             "process, add --follow-fork";
  return "";
}

}  // namespace

// Functions of the C runtime that tell roofprof about control flow it cannot see otherwise.
std::vector<std::pair<uint64_t, ProbeKind>> Session::runtime_hooks(const symbolizer::ElfFile& elf, bool is_main) {
  std::string base(path_basename(elf.path()));
  bool static_main = is_main && !elf.has_interp();
  bool ld_so = starts_with(base, "ld-linux");
  bool libc = starts_with(base, "libc.so") || static_main;
  bool libstdcxx = starts_with(base, "libstdc++.so") || static_main;
  // The in-process agent (combined mode) interposes __cxa_begin_catch: the program calls the
  // agent's, whose caller is the catching frame (libstdc++'s is then called one frame lower).
  bool agent = base == kAgentModule;
  std::vector<std::pair<uint64_t, ProbeKind>> out;
  std::set<uint64_t> seen;
  for (const auto& s : elf.functions()) {
    ProbeKind k;
    if (ld_so && s.name == "_dl_debug_state") k = ProbeKind::DynamicLinker;
    else if (libc && (s.name == "longjmp" || s.name == "_longjmp" || s.name == "siglongjmp" ||
                      s.name == "__longjmp_chk"))
      k = ProbeKind::Longjmp;
    else if (libc && (s.name == "exit" || s.name == "_exit" || s.name == "_Exit")) k = ProbeKind::ProcessExiting;
    else if ((libstdcxx || agent) && s.name == "__cxa_begin_catch") k = ProbeKind::CatchBegin;
    else continue;
    if (seen.insert(s.value).second) out.emplace_back(s.value, k);
  }
  return out;
}

std::vector<const symbolizer::ElfFile*> Session::module_files(const ThreadGroup& g) const {
  std::vector<const symbolizer::ElfFile*> files;
  for (const auto& [key, m] : g.modules) files.push_back(m.elf.get());
  return files;
}

void Session::scan_modules(Task& t) {
  ThreadGroup& g = *t.group;
  char exe[4096];
  ssize_t n = readlink(("/proc/" + std::to_string(g.tgid) + "/exe").c_str(), exe, sizeof exe - 1);
  std::string exe_path = n > 0 ? std::string(exe, size_t(n)) : "";
  const int64_t t0 = monotonic_ns();
  auto now = symbolizer::loaded_modules(g.tgid, elf_cache_);
  log::line(log::Category::Tracer, "modules of {}: {} mapped, read in {} us", g.tgid, now.size(),
            (monotonic_ns() - t0) / 1000);
  std::set<std::pair<std::string, uint64_t>> present;
  bool added = false;
  bool record = (opts_.stop_at_entry || opts_.record_modules) && g.tgid == main_pid_;
  if (record && g.modules.empty()) outcome_.modules.clear(), outcome_.loaded_late.clear();  // a new image (exec)
  for (const auto& m : now) {
    auto key = std::make_pair(m.path, m.start);
    present.insert(key);
    if (g.modules.count(key)) continue;
    g.modules.emplace(key, m);
    if (record) {
      outcome_.modules.push_back(m);
      if (g.initial_check_done) outcome_.loaded_late.push_back(m.path);
    }
    const int64_t t1 = monotonic_ns();
    place_probes(t, m, m.path == exe_path);
    log::line(log::Category::Tracer, "module {}: probes placed in {} us", m.path, (monotonic_ns() - t1) / 1000);
    added = true;
  }
  if (added && g.measured && opts_.agent) opts_.agent->publish(g.tgid);  // before the agent hooks
  for (auto it = g.modules.begin(); it != g.modules.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    g.as->forget_range(TraceeAddr(it->second.start), TraceeAddr(it->second.end));  // dlclose'd
    it = g.modules.erase(it);
  }
}

// The planner's probes of a module, once per process and mapping: planning records the region's
// sites and notes, and native counting needs the probe addresses before the probes are placed.
const std::vector<probes::PlannedProbe>& Session::planned_for(const ThreadGroup& g, const symbolizer::LoadedModule& m,
                                                               bool is_main) {
  auto key = std::make_tuple(g.tgid, m.path, m.start);
  auto it = planned_.find(key);
  if (it == planned_.end()) it = planned_.emplace(key, planner_.probes_for(*m.elf, is_main)).first;
  return it->second;
}

void Session::place_probes(Task& t, const symbolizer::LoadedModule& m, bool is_main) {
  auto hooks = runtime_hooks(*m.elf, is_main);
  count_natively(t, m, is_main, hooks);
  if (!defer_for_agent(t, m, is_main)) place_region_probes(t, m, is_main, hooks);
  for (const auto& [addr, kind] : hooks) {
    Probe probe;
    probe.kind = kind;
    add_probe(t, TraceeAddr(m.bias + addr), probe);
  }
}

void Session::place_region_probes(Task& t, const symbolizer::LoadedModule& m, bool is_main,
                                  const std::vector<std::pair<uint64_t, ProbeKind>>& hooks) {
  ThreadGroup& g = *t.group;
  if (!g.measured) return;
  // The agent's own functions run inside every probe of it: never a region.
  if (opts_.agent && path_basename(m.path) == kAgentModule) return;
  const auto planned = planned_for(g, m, is_main);
  // Entry patches first, then the agent's GOT hooks, then breakpoints for the rest.
  std::set<uint64_t> busy;  // no patch may cover a runtime hook
  for (const auto& [addr, kind] : hooks) busy.insert(addr);
  std::map<uint64_t, std::string> refused;
  std::set<uint64_t> by_agent = patch_entries(t, m, planned, busy, &refused);
  for (uint64_t a : by_agent) busy.insert(a);  // a span patch covers no patched entry
  const std::set<uint64_t> by_span_patch = patch_spans(t, m, planned, busy, &refused);
  if (opts_.agent) {
    std::vector<probes::PlannedProbe> rest;
    for (const auto& p : planned)
      if (!(p.role == probes::SiteRole::Entry ? by_agent : by_span_patch).count(p.address)) rest.push_back(p);
    by_agent.merge(opts_.agent->take(g.tgid, m, is_main, rest));
  }
  for (auto& [address, warning] : refused)  // said only when a breakpoint measures it
    if (!by_agent.count(address) && patch_refusals_.insert(warning).second) outcome_.warnings.push_back(warning);
  for (const auto& p : planned) {
    if (p.role == probes::SiteRole::Entry && by_agent.count(p.address)) continue;
    if (p.role != probes::SiteRole::Entry && by_span_patch.count(p.address)) continue;
    if (p.ifunc) {
      std::string w = fmt::format("region '{}': {}", planner_.regions()[p.region].name,
                                  probes::ifunc_note(p, "breakpoints"));
      if (std::find(outcome_.warnings.begin(), outcome_.warnings.end(), w) == outcome_.warnings.end())
        outcome_.warnings.push_back(std::move(w));
      continue;
    }
    Probe probe;
    probe.kind = kind_of(p.role);
    probe.region = p.region;
    if (opens(probe.kind) && budget_.stopped(p.region))
      continue;  // too costly (limit_probe_inflation): no new instances
    add_probe(t, TraceeAddr(m.bias + p.address), probe);
  }
}

void Session::initial_check(Task& t) {
  ThreadGroup& g = *t.group;
  if (g.initial_check_done) return;
  g.initial_check_done = true;
  if (!g.deferred.empty()) {  // the agent never came (LD_PRELOAD ignored): breakpoints
    place_deferred(t);
    if (g.measured && opts_.agent) opts_.agent->publish(g.tgid);
  }
  auto files = module_files(g);
  bool may_dlopen = opts_.follow_fork || std::any_of(files.begin(), files.end(), [](const symbolizer::ElfFile* f) {
                      return f->imports("dlopen");
                    });
  // Said now; the result says at the end which regions were never found (Planner::unresolved).
  for (auto& w : planner_.check_resolved(files, may_dlopen, launcher_hint(g.tgid, opts_.follow_fork)))
    std::fprintf(stderr, "roofprof: warning: %s\n", w.c_str());
  if (g.tgid == main_pid_) opts_.observer->ready();
  if (opts_.stop_at_entry) finish_requested_ = true;
}

bool Session::add_probe(Task& t, TraceeAddr at, const Probe& p) {
  ThreadGroup& g = *t.group;
  try {
    if (g.as->add_probe(at, p, [&](TraceeAddr near, size_t size) { return map_scratch(t, near, size); })) return true;
  } catch (const UserError& e) {
    // An instruction Capstone cannot decode or relocate (AVX-512 code in a library matched by
    // a glob): that site is left out, the run goes on.
    if (!is_site(p.kind)) throw;
    std::string w = fmt::format("region '{}': no breakpoint at {:#x} ({}): its calls there are not counted",
                                p.region < planner_.regions().size() ? planner_.regions()[p.region].name : "?",
                                at.value(), e.what());
    if (patch_refusals_.insert(w).second) outcome_.warnings.push_back(std::move(w));
    return false;
  }
  // Fail soft: without a scratch slot the probe is left out, the run goes on.
  if (!scratch_warned_) {
    scratch_warned_ = true;
    std::string what = p.kind == ProbeKind::Return ? "a return probe (the instance closes when next noticed)"
                       : is_site(p.kind) ? "a region's site (its calls there are not counted)"
                           : "a runtime hook";
    std::string w = fmt::format("no scratch page could be mapped near {:#x} in process {}: {} was left out",
                                at.value(), g.tgid, what);
    std::fprintf(stderr, "roofprof: warning: %s\n", w.c_str());
    outcome_.warnings.push_back(std::move(w));
  }
  return false;
}

// Maps `size` bytes at `prefer` when a hole of the tracee's address space has room for them
// there, else as close as possible to `near` (rip-relative reach), by running
// mmap(MAP_FIXED_NOREPLACE) inside the stopped task.
TraceeAddr Session::map_scratch(Task& t, TraceeAddr near, size_t size, TraceeAddr prefer) {
  auto maps = symbolizer::read_maps(t.group->tgid);
  std::sort(maps.begin(), maps.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  const uint64_t page = 4096, lowest = 0x10000;
  uint64_t best = 0, best_dist = UINT64_MAX;
  bool preferred = false;
  uint64_t prev_end = lowest;
  auto consider = [&](uint64_t lo, uint64_t hi) {
    if (hi <= lo || hi - lo < size + 2 * page) return;
    if (prefer && prefer.value() % page == 0 && prefer.value() >= lo + page && prefer.value() + size + page <= hi) {
      best = prefer.value(), preferred = true;
      return;
    }
    if (preferred) return;
    // the end of the hole nearest to `near`
    uint64_t cand = near.value() < lo ? lo + page : hi - size - page;
    uint64_t dist = cand > near.value() ? cand - near.value() : near.value() - cand;
    if (dist < best_dist) best = cand, best_dist = dist;
  };
  for (const auto& m : maps) {
    consider(prev_end, m.start);
    prev_end = std::max(prev_end, m.end);
  }
  consider(prev_end, 0x7ffffffff000ull);
  if (!best) return TraceeAddr();
  std::vector<int> deferred;
  auto r = inject_syscall(t, t.group->as->mem(), SYS_mmap,
                          {long(best), long(size), PROT_READ | PROT_EXEC,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0},
                          &deferred);
  for (int sig : deferred) syscall(SYS_tgkill, t.group->tgid, t.tid, sig);  // delivered later, as sent
  if (!r || *r < 0 || uint64_t(*r) != best) return TraceeAddr();
  return TraceeAddr(uint64_t(*r));
}

}  // namespace roofprof::tracer
