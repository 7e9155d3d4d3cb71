#include "preload/collector.hpp"

#include "preload/patch_format.h"

#include <algorithm>

#include <dirent.h>
#include <signal.h>
#include <time.h>

#include <cerrno>
#include <fmt/format.h>
#include <fstream>

#include "common/clock.hpp"
#include "common/error.hpp"

namespace roofprof::preload {

namespace {

// Alive, not a zombie. (A followed child is not ours to wait for: /proc says.)
bool process_running(int pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  char state = stat[close + 2];
  return state != 'Z' && state != 'X';
}

bool ends_with(const std::string& s, const char* suffix) {
  std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

}  // namespace

Collector::Collector(std::string dir, probes::Planner& planner, size_t n_events,
                     regions::Tracker& tracker, bool tracer_plans)
    : dir_(std::move(dir)),
      planner_(planner),
      names_(planner),
      replay_(n_events, tracker),
      tracer_plans_(tracer_plans) {}

void Collector::open_new_files() {
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (!ends_with(name, RP_FILE_SUFFIX) || opened_.count(name)) continue;
    opened_.insert(name);
    auto file = RecordFile::open(dir_ + "/" + name);
    file->set_consumer(::getpid());
    Key key{file->pid(), file->start_ns(), name};
    sources_[key].file = std::move(file);
  }
  ::closedir(d);
}

void Collector::map_regions(Source& s) {
  AgentTable t = parse_table(s.file->table());
  if (t.calibration && !calibration_) calibration_ = t.calibration;  // the first process's (calibrate.c)
  if (!tracer_plans_) names_.add_modules(t);
  if (module_seen_)
    for (const auto& m : t.modules) module_seen_(s.file->pid(), m.path, m.bias);
  for (const auto& [id, r] : t.regions) {
    if (id >= s.ids.size()) {
      s.ids.resize(id + 1);
      s.mapped.resize(id + 1, false);
    }
    if (s.mapped[id]) continue;
    s.mapped[id] = true;
    s.ids[id] = names_.regions_for(r.spec, r.symbol);
    hooked_.insert(s.ids[id].begin(), s.ids[id].end());
    if (s.ids[id].empty()) unnamed_.insert(r.symbol);
  }
}

uint32_t Collector::add_patch(std::vector<regions::RegionId> regions) {
  hooked_.insert(regions.begin(), regions.end());
  patches_.push_back(std::move(regions));
  return RP_PATCH_REGION_FLAG | uint32_t(patches_.size() - 1);
}

const std::vector<regions::RegionId>& Collector::regions_of(Source& s, uint32_t agent_id) {
  static const std::vector<regions::RegionId> none;
  if (agent_id & RP_PATCH_REGION_FLAG) {
    uint32_t id = agent_id & ~RP_PATCH_REGION_FLAG;
    return id < patches_.size() ? patches_[id] : none;
  }
  if (agent_id >= s.mapped.size() || !s.mapped[agent_id]) map_regions(s);
  return agent_id < s.ids.size() ? s.ids[agent_id] : none;
}

size_t Collector::drain(Source& s, bool final) {
  static const std::vector<regions::RegionId> none;
  return s.file->drain([&](const Record& r) {
    note_calibration(r);
    const bool has_region = r.kind == RecordKind::Enter || r.kind >= RecordKind::SpanStart;
    replay_.feed(r, has_region ? regions_of(s, r.region) : none);
  }, final);
}

// The agent's calibration calls (no region: the tracker sees an entry of nothing and a return
// that closes nothing) give the time a boundary leaves inside an instance.
void Collector::note_calibration(const Record& r) {
  if (r.kind == RecordKind::Enter && r.region == RP_CALIBRATION_REGION) {
    calibration_entered_[r.tid] = r.time_ns;
  } else if (r.kind == RecordKind::StackAt) {
    auto it = calibration_entered_.find(r.tid);
    if (it == calibration_entered_.end()) return;
    calibration_ns_.push_back(r.time_ns - it->second);
    calibration_entered_.erase(it);
  }
}

std::optional<result::AgentBoundary> Collector::boundary_cost() const {
  if (calibration_ns_.empty()) return std::nullopt;
  std::vector<int64_t> v = calibration_ns_;
  std::nth_element(v.begin(), v.begin() + ptrdiff_t(v.size() / 2), v.end());
  result::AgentBoundary c;
  c.inside_s = double(v[v.size() / 2]) * 1e-9;
  c.calls = uint32_t(calibration_ns_.size());
  if (calibration_ && calibration_->calls) c.per_call_s = double(calibration_->ns) / calibration_->calls * 1e-9;
  return c;
}

void Collector::end(Source& s, int64_t time_ns, regions::CloseReason why) {
  if (s.ended) return;
  drain(s, true);
  map_regions(s);  // hooks made after the last entry still count as hooked
  if (!s.file->exited()) replay_.end_process(s.file->pid(), time_ns, why);
  s.ended = true;
}

size_t Collector::poll() {
  open_new_files();
  size_t replayed = 0;
  // Files in (pid, start) order: an exec'd image's file comes after the one it replaced.
  for (auto it = sources_.begin(); it != sources_.end(); ++it) {
    Source& s = it->second;
    if (s.ended) continue;
    auto next = std::next(it);
    bool replaced = next != sources_.end() && std::get<0>(next->first) == s.file->pid();
    if (replaced) {
      end(s, std::get<1>(next->first), regions::CloseReason::ProcessExit);
      continue;
    }
    replayed += drain(s, false);
    if (s.file->pid() != root_pid_ && !process_running(s.file->pid()))
      end(s, monotonic_ns(), regions::CloseReason::ProcessExit);
  }
  return replayed;
}

size_t Collector::drain_published() {
  open_new_files();  // a process's first records may come before the periodic poll found its file
  size_t replayed = 0;
  for (auto it = sources_.begin(); it != sources_.end(); ++it) {
    auto next = std::next(it);
    bool replaced = next != sources_.end() && std::get<0>(next->first) == it->second.file->pid();
    if (!it->second.ended && !replaced) replayed += drain(it->second, false);  // poll() ends a replaced image
  }
  return replayed;
}

size_t Collector::drain_claimed(int pid, int64_t max_wait_ns) {
  size_t replayed = drain_published();
  std::vector<std::pair<const RecordFile*, uint64_t>> targets;
  for (auto& [key, s] : sources_)
    if (std::get<0>(key) == pid && !s.ended) targets.emplace_back(s.file.get(), s.file->claimed());
  const int64_t deadline = monotonic_ns() + max_wait_ns;
  for (;;) {
    bool behind = false;
    for (const auto& [f, head] : targets) behind |= f->drained() < head;
    if (!behind || monotonic_ns() >= deadline) return replayed;
    struct timespec nap {0, 20'000};
    nanosleep(&nap, nullptr);
    replayed += drain_published();
  }
}

void Collector::root_ended(int pid, int64_t end_ns, int term_signal) {
  root_pid_ = pid;
  open_new_files();
  poll();
  for (auto& [key, s] : sources_)
    if (std::get<0>(key) == pid)
      end(s, end_ns, term_signal ? regions::CloseReason::Crash : regions::CloseReason::ProcessExit);
}

bool Collector::others_running() {
  for (auto& [key, s] : sources_)
    if (!s.ended && std::get<0>(key) != root_pid_ && process_running(std::get<0>(key))) return true;
  return false;
}

void Collector::finish(int64_t end_ns) {
  open_new_files();
  poll();
  for (auto& [key, s] : sources_) end(s, end_ns, regions::CloseReason::Detach);
}

bool Collector::has_file_of(int pid) const {
  for (const auto& [key, s] : sources_)
    if (std::get<0>(key) == pid) return true;
  return false;
}

bool Collector::complete() const {
  for (const auto& [key, s] : sources_)
    if (s.file->lost() || s.file->consumer_lost()) return false;
  return true;
}

uint64_t Collector::evictions() const {
  uint64_t n = 0;
  for (const auto& [key, s] : sources_) n += s.file->evictions();
  return n;
}

std::vector<std::string> Collector::warnings() const {
  std::vector<std::string> w;
  std::set<std::string> agent_lines;
  for (const auto& [key, s] : sources_) {
    const RecordFile& f = *s.file;
    int pid = f.pid();
    if (f.lost() || f.consumer_lost())
      w.push_back(fmt::format("process {}: the agent stopped after the ring filled up with nobody draining it; "
                              "{} records lost, later calls not measured", pid, f.lost()));
    if (f.torn())
      w.push_back(fmt::format("process {}: {} records were being written when the process ended and are lost", pid, f.torn()));
    if (f.shadow_overflow())
      w.push_back(fmt::format("process {}: {} region calls not measured: more than {} hooked calls nested on one thread",
                              pid, f.shadow_overflow(), RP_MAX_DEPTH));
    if (f.reentered())
      w.push_back(fmt::format("process {}: {} region calls not measured: made by a signal handler that interrupted the agent",
                              pid, f.reentered()));
    if (f.table_full()) w.push_back(fmt::format("process {}: the agent's hook table is full; some hooks are not reported", pid));
    for (auto& line : parse_table(f.table()).warnings) agent_lines.insert(line);
  }
  for (const auto& line : agent_lines) w.push_back("agent: " + line);
  for (const auto& sym : unnamed_)
    w.push_back(fmt::format("the agent hooked '{}' but no region of roofprof matches it; its calls are not counted", sym));
  if (tracer_plans_) return w;  // the combined mode's runner says what was not measured
  std::string unhooked;
  const auto& infos = planner_.regions();
  for (size_t id = 0; id < infos.size(); ++id) {
    const auto& info = infos[id];
    if (info.kind != regions::RegionKind::Function || info.sites.empty() || hooked_.count(regions::RegionId(id))) continue;
    unhooked += (unhooked.empty() ? "'" : ", '") + info.name + "'";
  }
  if (!unhooked.empty())
    w.push_back("not hooked (no module calls them through the dynamic linker: static or hidden functions, or calls "
                "inside one library), so their calls were not seen and their zero counts are not measurements: " +
                unhooked);
  try {  // records why a name is unknown; the run's notes say it once (cli planner_notes)
    planner_.check_resolved(names_.modules(), false);
  } catch (const UserError&) {
  }
  return w;
}

}  // namespace roofprof::preload
