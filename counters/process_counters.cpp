#include "counters/backend.hpp"

namespace roofprof::counters {
namespace {

// Sums raw counts and, group by group, time_enabled and time_running (every thread has the
// backend's groups in the same order); the deltas are scaled per thread (CounterValues::threads).
void accumulate(CounterValues& into, const CounterValues& v) {
  if (into.values.size() < v.values.size()) into.values.resize(v.values.size(), 0.0);
  for (size_t i = 0; i < v.values.size(); ++i) into.values[i] += v.values[i];
  if (into.groups.size() < v.groups.size()) into.groups.resize(v.groups.size());
  for (size_t g = 0; g < v.groups.size(); ++g) {
    into.groups[g].first = v.groups[g].first;
    into.groups[g].count = v.groups[g].count;
    into.groups[g].enabled += v.groups[g].enabled;
    into.groups[g].running += v.groups[g].running;
    into.groups[g].pinned = v.groups[g].pinned;
  }
  into.multiplexed = into.multiplexed || v.multiplexed;
}

// `tail` after `into`'s values, its groups moved along.
void append(CounterValues& into, const CounterValues& tail) {
  const size_t offset = into.values.size();
  into.values.insert(into.values.end(), tail.values.begin(), tail.values.end());
  for (CounterGroupTimes g : tail.groups) {
    g.first += offset;
    into.groups.push_back(g);
  }
  into.multiplexed = into.multiplexed || tail.multiplexed;
}

ThreadCounts part_of(uint64_t serial, const CounterValues& v) { return ThreadCounts{serial, v.values, v.groups}; }

// Every group held its counters for the thread's whole life: its counts need no scaling, so they
// can be pooled with other such threads' without changing any delta (common/counts.hpp).
bool exact_all_along(const CounterValues& v) {
  for (const CounterGroupTimes& g : v.groups)
    if (g.running < g.enabled) return false;
  for (double x : v.values)
    if (!is_counted(x)) return false;
  return true;
}

}  // namespace

void ProcessCounters::add_thread(pid_t tid) {
  // A tid seen again without remove_thread (exit missed, tid reused): retire the old one.
  if (has_thread(tid)) remove_thread(tid);
  threads_.emplace(tid, Live{next_serial_++, backend_.open(tid)});
}

void ProcessCounters::remove_thread(pid_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) return;
  CounterValues last = it->second.counters->read();
  accumulate(retired_, last);
  if (last.groups.empty()) {
    // no groups: nothing to scale
  } else if (exact_all_along(last)) {
    accumulate(retired_exact_, last);  // part 0: bounded memory for programs that start many threads
  } else {
    retired_parts_.push_back(part_of(it->second.serial, last));
  }
  threads_.erase(it);
}

CounterValues ProcessCounters::read_thread(pid_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) return CounterValues{std::vector<double>(size(), 0.0), false};
  CounterValues v = it->second.counters->read();
  if (backend_.system_wide_events()) v.values.resize(size(), kNotCounted);  // not one thread's
  return v;
}

CounterValues ProcessCounters::read_process(pid_t now_tid, const CounterValues* now) {
  const size_t per_thread = size() - backend_.system_wide_events();
  CounterValues sum{std::vector<double>(per_thread, 0.0), false};
  accumulate(sum, retired_);
  sum.threads = retired_parts_;
  if (!retired_exact_.groups.empty()) sum.threads.push_back(part_of(0, retired_exact_));
  for (auto& [tid, live] : threads_) {
    CounterValues mine;
    if (now && tid == now_tid) {
      mine = *now;
      mine.values.resize(per_thread);  // without read_thread's unknown system-wide tail
    } else {
      mine = live.counters->read();
    }
    accumulate(sum, mine);
    if (!mine.groups.empty()) sum.threads.push_back(part_of(live.serial, mine));
  }
  if (backend_.system_wide_events()) append(sum, backend_.read_system_wide());
  return sum;
}

}  // namespace roofprof::counters
