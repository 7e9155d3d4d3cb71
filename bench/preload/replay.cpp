// bench_replay: what roofprof's side costs per agent record, without the program: N calls of one
// region on T threads, as the records the agent writes (an entry, then the stack-pointer record
// of its return), replayed into one tracker whose instances go to the aggregation, as
// `roofprof run` does. Prints nanoseconds per record.
//   bench_replay [CALLS] [EVENTS] [THREADS]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "preload/replay.hpp"
#include "regions/aggregate.hpp"

using namespace roofprof;

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 2'000'000;
  const size_t events = argc > 2 ? size_t(std::atol(argv[2])) : 0;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  regions::Aggregator agg;
  regions::Tracker tracker([&](regions::Instance&& inst) { agg.add(inst); });
  preload::Replay replay(events, tracker);
  const std::vector<regions::RegionId> region{0}, none;
  preload::Record enter, ret;
  enter.kind = preload::RecordKind::Enter;
  ret.kind = preload::RecordKind::StackAt;
  enter.pid = ret.pid = 100;
  enter.has_counts = ret.has_counts = events > 0;
  auto t0 = std::chrono::steady_clock::now();
  int64_t now = 0;
  for (long i = 0; i < calls; ++i) {
    int tid = 100 + int(i % threads);
    enter.tid = ret.tid = tid;
    enter.sp = 0x7ffff000 - 64;
    ret.sp = enter.sp + 8;
    enter.time_ns = now += 50;
    ret.time_ns = now += 50;
    for (size_t e = 0; e < events; ++e) enter.counts[e] = ret.counts[e] = uint64_t(i) * (e + 1);
    replay.feed(enter, region);
    replay.feed(ret, none);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& a = agg.regions().at(0);
  if (a.calls != uint64_t(calls)) {
    std::fprintf(stderr, "bench_replay: %lu calls aggregated, %ld made\n", (unsigned long)a.calls, calls);
    return 1;
  }
  std::printf("calls=%ld events=%zu threads=%d ns_per_record=%.1f\n", calls, events, threads,
              s * 1e9 / double(2 * calls));
  return 0;
}
