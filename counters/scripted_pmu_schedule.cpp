// The scripted PMU's model of the kernel's counter scheduling (see scripted_pmu.hpp).
#include <algorithm>
#include <cmath>

#include "counters/scripted_pmu.hpp"

namespace roofprof::counters {

struct ScriptedPmu::Usage {
  std::map<int, int> general;               // PMU -> general-purpose counters taken
  std::map<int, std::set<size_t>> fixed;    // PMU -> fixed counters (index into fixed_) taken
};

int ScriptedPmu::pmu_of(const perf_event_attr& a) const {
  return a.type == PERF_TYPE_HARDWARE ? PERF_TYPE_RAW : static_cast<int>(a.type);
}

bool ScriptedPmu::software(const perf_event_attr& a) const {
  return a.type == PERF_TYPE_SOFTWARE || a.type == PERF_TYPE_TRACEPOINT;
}

// arch/x86/events/amd/core.c: amd_is_pair_event_code(), on family 17h and later (PMU_FL_PAIR).
bool ScriptedPmu::pair_event(const perf_event_attr& a) const {
  if (cpu_.vendor != "AuthenticAMD" || cpu_.family < 0x17 || a.type != PERF_TYPE_RAW) return false;
  const uint64_t code = ((a.config >> 24) & 0x0f00) | (a.config & 0x00ff);
  return code == 0x003;
}

int ScriptedPmu::counters_of(int pmu) const {
  auto it = counters_.find(pmu);
  return it == counters_.end() ? default_counters_ : it->second;
}

bool ScriptedPmu::fits(int leader, Usage& u) const {
  Usage next = u;
  for (int m : events_.at(leader).members) {
    const perf_event_attr& a = events_.at(m).attr;
    if (software(a)) continue;
    const int pmu = pmu_of(a);
    const bool core = pmu == PERF_TYPE_RAW || is_core_type(pmu);
    bool held_by_watchdog = false;
    if (core && watchdog_ == Watchdog::fixed)
      for (const Key& k : watchdog_fixed_) held_by_watchdog = held_by_watchdog || matches(k, a);
    std::set<size_t>& fixed = next.fixed[pmu];
    bool placed = false;
    for (size_t i = 0; i < fixed_.size() && !placed && !held_by_watchdog; ++i)
      if (matches(fixed_[i], a) && !fixed.count(i)) placed = fixed.insert(i).second;
    if (placed) continue;
    int& general = next.general[pmu];
    if (general == 0 && core && watchdog_ == Watchdog::gp) general = 1;  // the watchdog's own
    general += pair_event(a) ? 2 : 1;
    if (general > counters_of(pmu)) return false;
  }
  u = std::move(next);
  return true;
}

int ScriptedPmu::core_type_at(uint64_t step, int tick) const {
  if (core_order_.empty()) return -1;
  if (residency_.empty()) return core_order_.front();
  const Rule& r = residency_.front();
  const double share = r.values[step % r.values.size()];
  if (tick < std::lround(share * ticks_)) return r.key.type;
  for (int t : core_order_)
    if (t != r.key.type) return t;
  return -1;  // a core type the script did not declare: none of its groups can run
}

int ScriptedPmu::ticks_on(uint64_t step, int core_type) const {
  int n = 0;
  for (int k = 0; k < ticks_; ++k) n += core_type_at(step, k) == core_type;
  return n;
}

void ScriptedPmu::accrue(int leader_fd, uint64_t step, double share, int core_type, bool runs_here) {
  Event& leader = events_.at(leader_fd);
  const uint64_t tick_ns = 1000 / static_cast<uint64_t>(ticks_);
  leader.enabled += tick_ns;
  if (!runs_here) return;
  leader.running += static_cast<uint64_t>(std::llround(static_cast<double>(tick_ns) * share));
  for (int m : leader.members) {
    Event& e = events_.at(m);
    const Rule* r = find(counts_, e.attr);
    if (!r) continue;
    const double n = r->values[step % r->values.size()];
    const int pmu = pmu_of(e.attr);
    const int ticks = is_core_type(pmu) ? ticks_on(step, pmu) : ticks_;
    if (ticks > 0 && (!is_core_type(pmu) || pmu == core_type)) e.raw += n / ticks * share;
  }
}

const ScriptedPmu::Rule* ScriptedPmu::schedule_of(int leader) const {
  for (int m : events_.at(leader).members)
    if (const Rule* r = find(schedules_, events_.at(m).attr)) return r;
  return nullptr;
}

void ScriptedPmu::tick(Timeline& t, uint64_t step, int k) {
  const int here = core_type_at(step, k);
  // Rotation (perf_rotate_context): the first flexible group that ran goes to the end.
  for (int pmu : t.rotate) {
    auto first = t.last_first_active.find(pmu);
    auto it = first == t.last_first_active.end()
                  ? std::find_if(t.flexible.begin(), t.flexible.end(),
                                 [&](int l) { return pmu_of(events_.at(l).attr) == pmu; })
                  : std::find(t.flexible.begin(), t.flexible.end(), first->second);
    if (it != t.flexible.end()) std::rotate(it, it + 1, t.flexible.end());
  }
  t.rotate.clear();
  t.last_first_active.clear();
  auto on_this_cpu = [&](int leader) {
    const perf_event_attr& a = events_.at(leader).attr;
    return software(a) || !is_core_type(pmu_of(a)) || pmu_of(a) == here;
  };
  Usage used;
  std::set<int> pinned_full;  // PMUs where a pinned group did not fit: can_add_hw = 0 for the pass
  for (int l : t.pinned) {
    Event& e = events_.at(l);
    if (e.error) continue;
    const int pmu = pmu_of(e.attr);
    if (const Rule* r = schedule_of(l)) {
      accrue(l, step, r->values[step % r->values.size()], here, true);
    } else if (!on_this_cpu(l)) {
      accrue(l, step, 0, here, false);
    } else if (!pinned_full.count(pmu) && fits(l, used)) {
      accrue(l, step, 1, here, true);
    } else if (!software(e.attr)) {
      e.error = true;  // merge_sched_in(): a pinned group that cannot go on
      pinned_full.insert(pmu);
    }
  }
  std::set<int> full;
  for (int l : t.flexible) {
    const Event& e = events_.at(l);
    const int pmu = pmu_of(e.attr);
    if (const Rule* r = schedule_of(l)) {
      accrue(l, step, r->values[step % r->values.size()], here, true);
    } else if (!on_this_cpu(l) || full.count(pmu)) {
      accrue(l, step, 0, here, false);
    } else if (fits(l, used)) {
      t.last_first_active.emplace(pmu, l);
      accrue(l, step, 1, here, true);
    } else {
      full.insert(pmu);  // can_add_hw = 0: nothing more on this PMU until the next tick
      t.rotate.insert(pmu);
      accrue(l, step, 0, here, false);
    }
  }
}

void ScriptedPmu::advance(Timeline& t) {
  for (int k = 0; k < ticks_; ++k) tick(t, t.steps, k);
  ++t.steps;
}

}  // namespace roofprof::counters
