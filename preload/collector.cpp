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
                     regions::Tracker& tracker, bool tracer_plans, std::vector<CounterGroupTimes> timed)
    : dir_(std::move(dir)),
      planner_(planner),
      names_(planner),
      replay_(n_events, tracker, std::move(timed)),
      n_events_(n_events),
      bell_(dir_),
      tracer_plans_(tracer_plans) {}

namespace {
int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

Collector::CpuSpan::CpuSpan(Collector& c) : c_(c) {
  if (c_.cpu_depth_++ == 0) start_ = thread_cpu_ns();
}

Collector::CpuSpan::~CpuSpan() {
  if (--c_.cpu_depth_ == 0) c_.reader_cpu_ns_ += thread_cpu_ns() - start_;
}

overhead::AgentReader Collector::reader_cost() const {
  overhead::AgentReader r;
  r.cpu_s = double(reader_cpu_ns_) * 1e-9;
  r.sleeps = sleeps_;
  r.rings = rang_;
  return r;
}

bool Collector::past_mark() const {
  for (const auto& [key, s] : sources_)
    if (!s.ended && s.file->claimed() - s.file->drained() >= s.file->mark()) return true;
  return false;
}

size_t Collector::wait_and_drain(const std::function<bool()>& quiet) {
  CpuSpan span(*this);
  Doorbell::Armed armed = bell_.arm();
  bool rang = false;
  const bool past = past_mark();
  int64_t left = last_poll_ns_ + kDrainTimeoutNs - monotonic_ns();
  if (past) left = std::min(left, kStalledNapNs);
  if (quiet() && (!past || stalled_) && left > 0) {
    ++sleeps_;
    rang = bell_.sleep(armed, left);
    rang_ += rang;
  } else {
    bell_.disarm();
  }
  if (!rang && !past_mark() && monotonic_ns() - last_poll_ns_ < kDrainTimeoutNs) return 0;
  size_t n = poll();
  stalled_ = n == 0 && past_mark();
  return n;
}

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
  if (t.calibration && !calibration_) {  // the first process's (calibrate.c)
    calibration_ = t.calibration;
    replay_.set_untimed_per_boundary(call_costs().untimed_per_boundary_ns);
  }
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

const std::vector<regions::RegionId>& Collector::mapped_regions(const Source& s, uint32_t agent_id) const {
  static const std::vector<regions::RegionId> none;
  if (agent_id & RP_PATCH_REGION_FLAG) {
    uint32_t id = agent_id & ~RP_PATCH_REGION_FLAG;
    return id < patches_.size() ? patches_[id] : none;
  }
  return agent_id < s.ids.size() ? s.ids[agent_id] : none;
}

std::set<regions::RegionId> Collector::clock_only() const {
  std::set<regions::RegionId> out;
  for (const auto& [key, s] : sources_)
    for (uint32_t word : s.file->regions_flagged(RP_STATE_CLOCK_ONLY))
      for (regions::RegionId id : mapped_regions(s, word)) out.insert(id);
  return out;
}

std::vector<std::string> Collector::clock_only_warnings() const {
  std::map<regions::RegionId, double> mean_ns;  // the shortest mean any process timed
  std::map<regions::RegionId, const RecordFile*> file;
  for (const auto& [key, s] : sources_)
    for (uint32_t word : s.file->regions_flagged(RP_STATE_CLOCK_ONLY))
      for (regions::RegionId id : mapped_regions(s, word)) {
        double ns = s.file->timed_call_ns(word);
        if (!mean_ns.count(id) || ns < mean_ns[id]) mean_ns[id] = ns, file[id] = s.file.get();
      }
  std::vector<std::string> w;
  const auto& infos = planner_.regions();
  for (const auto& [id, ns] : mean_ns) {
    const RecordFile& f = *file[id];
    w.push_back(fmt::format(
        "region '{}': its calls ({:.3g} us on average over its first {}) are shorter than {} times what the "
        "counters add to a call ({:.3g} us, measured at start-up): from then on its in-process boundaries read "
        "the clock alone, so its counters are not counted (null); --events counts them on every call",
        id < infos.size() ? infos[id].name : std::to_string(id), ns * 1e-3, RP_STATE_SAMPLE, f.cheap_factor(),
        double(f.counter_call_ns()) * 1e-3));
  }
  return w;
}

// A region word whose regions all came from a survey, timed by the agent over its first calls,
// and whose calls are too short for its probe: turned off (skip_if_frequent).
void Collector::skip_frequent(Source& s) {
  if (skippable_.empty() || !calibration_ || s.ended) return;
  const double probe_ns = call_costs().clock_ns;
  auto judge = [&](uint32_t word, const std::vector<regions::RegionId>& ids) {
    if (ids.empty() || (s.file->region_flags(word) & RP_STATE_OFF)) return;
    for (regions::RegionId id : ids)
      if (!skippable_.count(id)) return;
    const double mean = s.file->timed_call_ns(word);
    if (mean <= 0 || mean >= skip_factor_ * probe_ns || !s.file->sampled_fully(word)) return;
    if (!s.file->turn_off(word)) return;
    for (regions::RegionId id : ids) skipped_.emplace(id, Skipped{mean, probe_ns});
  };
  for (uint32_t id = 0; id < s.ids.size(); ++id) judge(id, s.ids[id]);
  for (uint32_t p = 0; p < patches_.size(); ++p) judge(RP_PATCH_REGION_FLAG | p, patches_[p]);
}

std::vector<std::string> Collector::skipped_warnings() const {
  std::vector<std::string> w;
  const auto& infos = planner_.regions();
  for (const auto& [id, k] : skipped_)
    w.push_back(fmt::format(
        "region '{}' (from the survey): no longer measured once its first {} calls were timed: they took {:.3g} us "
        "on average, less than {:g} times what its in-process probe costs a call ({:.3g} us), so probing every call "
        "would distort the regions around it; its calls and time are those measured before (a lower bound; give "
        "it with --region to measure every call)",
        id < infos.size() ? infos[id].name : std::to_string(id), RP_STATE_SAMPLE, k.mean_call_ns * 1e-3, skip_factor_,
        k.probe_call_ns * 1e-3));
  return w;
}

size_t Collector::drain(Source& s, bool final) {
  static const std::vector<regions::RegionId> none;
  turn_off_stopped(s);
  skip_frequent(s);
  bool looked = false;  // for the calibration's line, once a drain: needed from the first region entry on
  return s.file->drain([&](const Record& r) {
    note_calibration(r);
    if (!calibration_ && !looked && r.kind == RecordKind::Enter && r.region != RP_CALIBRATION_REGION) {
      looked = true;
      map_regions(s);
    }
    const bool has_region = r.kind == RecordKind::Enter || r.kind >= RecordKind::SpanStart;
    const auto& ids = has_region ? regions_of(s, r.region) : none;
    if (r.kind == RecordKind::Enter || r.kind == RecordKind::SpanStart)
      for (regions::RegionId id : ids) ++(r.has_counts || !n_events_ ? calls_[id].counted : calls_[id].clock_only);
    replay_.feed(r, ids);
  }, final);
}

namespace {

// The median of `v` (0 when it has fewer than 16 values: too few to stand for a loop's calls).
double median_of(std::vector<int64_t> v) {
  if (v.size() < 16) return 0;
  std::nth_element(v.begin(), v.begin() + ptrdiff_t(v.size() / 2), v.end());
  return double(v[v.size() / 2]);
}

}  // namespace

// Consecutive calibration calls of one loop on one thread: from one entry record to the next is
// one whole call (its time, what its boundaries timed of it, and the rest). Medians over the
// loop's calls, unlike the loop's total, do not count a preemption in the middle of it.
void Collector::note_calibration_cycle(const Record& r) {
  const bool counted = r.has_counts || !n_events_;
  CalibrationCall& last = calibration_last_[r.tid];
  if (last.valid && last.counted == counted) {
    const int64_t whole = r.time_ns - last.time_ns;
    (counted ? cycle_counted_ns_ : cycle_clock_ns_).push_back(whole);
    untimed_ns_.push_back(whole - (r.probe_ns - last.probe_ns));
  }
  last = CalibrationCall{r.time_ns, r.probe_ns, counted, true};
}

Collector::CallCosts Collector::call_costs() const {
  CallCosts c;
  if (!calibration_) return c;
  c.counted_ns = median_of(cycle_counted_ns_);
  if (c.counted_ns == 0) c.counted_ns = double(calibration_->ns) / calibration_->calls;
  c.clock_ns = median_of(cycle_clock_ns_);
  if (c.clock_ns == 0) c.clock_ns = calibration_->clock_only_ns ? double(calibration_->clock_only_ns) / calibration_->calls : c.counted_ns;
  c.untimed_per_boundary_ns = untimed_ns_.size() >= 16 ? std::max(0.0, median_of(untimed_ns_) / 2)
                                                        : calibration_->untimed_per_boundary_ns();
  return c;
}

std::map<regions::RegionId, double> Collector::probe_cost_ns() const {
  std::map<regions::RegionId, double> out;
  if (!calibration_) return out;
  const CallCosts costs = call_costs();
  const double counted = costs.counted_ns, clock = costs.clock_ns;
  for (const auto& [id, n] : calls_) out[id] = double(n.counted) * counted + double(n.clock_only) * clock;
  return out;
}

void Collector::stop_probing(regions::RegionId region) {
  stopped_.insert(region);
  for (auto& [key, s] : sources_) turn_off_stopped(s);
}

// Every agent region word of `s` that stands for a region no longer probed is turned off (again:
// a process's hooks and patches appear as it runs).
void Collector::turn_off_stopped(Source& s) {
  if (stopped_.empty() || s.ended) return;
  auto any = [this](const std::vector<regions::RegionId>& v) {
    return std::any_of(v.begin(), v.end(), [this](regions::RegionId id) { return stopped_.count(id) > 0; });
  };
  for (uint32_t id = 0; id < s.ids.size(); ++id)
    if (any(s.ids[id])) s.file->turn_off(id);
  for (uint32_t p = 0; p < patches_.size(); ++p)
    if (any(patches_[p])) s.file->turn_off(RP_PATCH_REGION_FLAG | p);
}

// The agent's calibration calls (no region: the tracker sees an entry of nothing and a return
// that closes nothing) give the time a boundary leaves inside an instance.
void Collector::note_calibration(const Record& r) {
  if (r.kind == RecordKind::Enter && r.region == RP_CALIBRATION_REGION) note_calibration_cycle(r);
  if (n_events_ && !r.has_counts) return;  // the calibration's clock-only loop (calibrate.c): not the run's boundary
  if (r.kind == RecordKind::Enter && r.region == RP_CALIBRATION_REGION) {
    calibration_entered_[r.tid] = r.time_ns;
  } else if (r.kind == RecordKind::StackAt) {
    auto it = calibration_entered_.find(r.tid);
    if (it == calibration_entered_.end() || calibration_ns_.size() >= RP_CALIBRATION_CALLS) return;  // the loop's
    calibration_ns_.push_back(r.time_ns - it->second);
    calibration_entered_.erase(it);
  }
}

std::optional<overhead::AgentBoundary> Collector::boundary_cost() const {
  if (calibration_ns_.empty()) return std::nullopt;
  std::vector<int64_t> v = calibration_ns_;
  std::nth_element(v.begin(), v.begin() + ptrdiff_t(v.size() / 2), v.end());
  overhead::AgentBoundary c;
  c.inside_s = double(v[v.size() / 2]) * 1e-9;
  c.calls = uint32_t(calibration_ns_.size());
  if (calibration_ && calibration_->calls) c.per_call_s = call_costs().counted_ns * 1e-9;
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
  CpuSpan span(*this);
  last_poll_ns_ = monotonic_ns();
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
  CpuSpan span(*this);
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
  CpuSpan span(*this);
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
  CpuSpan span(*this);
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
  CpuSpan span(*this);
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
  for (auto& line : clock_only_warnings()) w.push_back(std::move(line));
  for (auto& line : skipped_warnings()) w.push_back(std::move(line));
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
