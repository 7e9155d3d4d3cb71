// Regions and OpenMP threads (docs/methodology.md, "Counters and scope", "Threads"): with
// scope=process a region's W is every thread's work while it is open on some thread, each
// thread's once, whether every thread calls it at once (a), one thread calls it and workers do
// the work inside (b), or both, nested (c). 8 and 16 threads (oversubscribed on a small machine:
// exactness does not depend on it). run_omp_patterns (tests/fixtures/run/omp_patterns.c) does
// nothing in floating point outside its kernels: the expected W is its analytic count.
#include <algorithm>
#include <numeric>
#include <tuple>

#include "harness.hpp"

namespace it {
namespace {

constexpr long kN = 4000;    // multiply-adds of the smallest kernel call: 2 kN flops
constexpr long kRepeats = 2;  // the pattern runs this many times

struct Pattern {
  char mode;
  const char* region;
};
constexpr Pattern kPatterns[] = {{'a', "each"}, {'b', "spread"}, {'c', "nested"}};

// The fixture's analytic W and calls of the region (omp_patterns.c).
double expected_flops(char mode, int threads) {
  switch (mode) {
    case 'a': return kRepeats * 2.0 * kN * threads * (threads + 1) / 2;
    case 'b': return kRepeats * 2.0 * kN * threads;
    default: return kRepeats * 4.0 * kN * threads;
  }
}
int64_t expected_calls(char mode, int threads) { return mode == 'b' ? kRepeats : kRepeats * threads; }

json run_pattern(Sandbox& sb, const Pattern& p, int threads, const std::vector<std::string>& options = {},
                 const std::string& backend = "emul") {
  std::vector<std::string> args{"run", "--backend", backend, "--region", p.region};
  if (backend == "emul") args.push_back("--no-cache-sim");
  else args.insert(args.end(), {"--emul-budget", "0"});  // native counting: W only
  args.insert(args.end(), options.begin(), options.end());
  for (const std::string& a : {std::string("--"), fixture("run_omp_patterns"), std::string(1, p.mode),
                               std::to_string(threads), std::to_string(kN), std::to_string(kRepeats)})
    args.push_back(a);
  RunOptions ro;
  ro.timeout = std::chrono::seconds(300);
  auto r = sb.roofprof(args, ro);
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  if (r.exit_code() != 0) return nullptr;
  return load_result(r);
}

// Each thread's own W and the others' add up to the region's; its calls to the region's.
void expect_parts_add_up(const json& reg) {
  ASSERT_TRUE(reg.contains("per_thread")) << reg.dump();
  double flops = reg.value("flops_other_threads", 0.0);
  int64_t n = 0;
  for (const auto& t : reg["per_thread"]) {
    flops += t["flops"].get<double>();
    n += t["calls"].get<int64_t>();
  }
  EXPECT_DOUBLE_EQ(flops, reg["flops"].get<double>()) << reg.dump();
  EXPECT_EQ(n, calls(reg));
}

// Under emulation (one thread at a time) and under native counting (the threads at once, each
// counting in its own slots: docs/native.md).
class OmpPatterns : public ::testing::TestWithParam<std::tuple<int, int, std::string>> {};

TEST_P(OmpPatterns, WorkIsExact) {
  const Pattern& p = kPatterns[std::get<0>(GetParam())];
  const int threads = std::get<1>(GetParam());
  Sandbox sb;
  json res = run_pattern(sb, p, threads, {}, std::get<2>(GetParam()));
  ASSERT_FALSE(res.is_null());
  json reg = region(res, p.region);
  EXPECT_EQ(calls(reg), expected_calls(p.mode, threads)) << reg.dump();
  EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), expected_flops(p.mode, threads)) << reg.dump();
  if (p.mode == 'b') {
    // One caller: its own W is a share of the kernels' (it runs one of them), the rest the workers'.
    EXPECT_FALSE(reg.contains("per_thread")) << reg.dump();
    EXPECT_DOUBLE_EQ(reg["flops_other_threads"].get<double>(), expected_flops('b', threads) * (threads - 1) / threads);
  } else {
    expect_parts_add_up(reg);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, OmpPatterns,
                         ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Values(8, 16),
                                            ::testing::Values("emul", "native")),
                         [](const auto& info) {
                           return std::string(1, kPatterns[std::get<0>(info.param)].mode) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "_threads_" + std::get<2>(info.param);
                         });

// The engine runs one thread at a time, in an order that changes from run to run; W does not.
TEST(OmpPatternsRepeat, NestedWorkIsTheSameInFiveEmulatedRuns) {
  Sandbox sb;
  for (int run = 0; run < 5; ++run) {
    json res = run_pattern(sb, kPatterns[2], 16);
    ASSERT_FALSE(res.is_null());
    json reg = region(res, "nested");
    EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), expected_flops('c', 16)) << "run " << run << ": " << reg.dump();
    expect_parts_add_up(reg);
  }
}

// Unequal work per thread (thread t does t + 1 shares): each thread's W, and the imbalance of W
// (max / mean) flagged in the summary and the report.
TEST(OmpPatternsBalance, UnequalWorkIsShownPerThreadAndFlagged) {
  Sandbox sb;
  constexpr int kThreads = 8;
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "--region", "each", "--",
                        fixture("run_omp_patterns"), "a", std::to_string(kThreads), std::to_string(kN),
                        std::to_string(kRepeats)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "each");
  ASSERT_EQ(reg["per_thread"].size(), size_t(kThreads)) << reg.dump();
  std::vector<double> got;
  for (const auto& t : reg["per_thread"]) {
    EXPECT_EQ(t["calls"].get<int64_t>(), kRepeats) << t.dump();
    EXPECT_GT(t["time_s"].get<double>(), 0) << t.dump();
    got.push_back(t["flops"].get<double>());
  }
  std::sort(got.begin(), got.end());
  for (int t = 0; t < kThreads; ++t) EXPECT_DOUBLE_EQ(got[size_t(t)], kRepeats * 2.0 * kN * (t + 1));
  const double mean = kRepeats * 2.0 * kN * (kThreads + 1) / 2.0;
  EXPECT_EQ(reg["balance"]["threads"].get<int>(), kThreads);
  EXPECT_NEAR(reg["balance"]["flops"]["imbalance"].get<double>(), kRepeats * 2.0 * kN * kThreads / mean, 1e-12);
  EXPECT_NE(r.err.find("imbalance"), std::string::npos) << r.err;
  auto report = sb.roofprof({"report", "--no-plot", sb.path("roofprof.json").string()});
  ASSERT_EQ(report.exit_code(), 0) << report.diag();
  EXPECT_NE(report.out.find("imbalance"), std::string::npos) << report.out;
}

// The tracer's counting path (breakpoints, a group per thread) on the scripted PMU
// (counters/scripted_pmu.hpp): every read of a thread's group is one step of 1000 scalar
// double-precision flops, so the region's W is 1000 x the steps of every thread's group while
// the region was open, each once. Per repetition, with T threads all in the region at once (its
// barrier), the steps inside are the reads of the T - 1 later entries and the T exits (the first
// entry's is the start) and the process's read at the last exit (every other thread's group once:
// the closing thread's own read is reused): (a) 3T - 2; (b) the caller's exit and its T - 1
// workers at the process read: T; (c) as (a) plus the T inner threads at the process read:
// 4T - 2. Each calling thread's own W is its exit's step. Counting each call's process delta
// would give several times as much, and a different figure each run.
class OmpPatternsScripted : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(OmpPatternsScripted, EveryThreadsCountsOnce) {
  const Pattern& p = kPatterns[std::get<0>(GetParam())];
  const int threads = std::get<1>(GetParam());
  Sandbox sb;
  write_text(sb.path("pmu.script"), "cpu GenuineIntel 6 0x55\ncount raw 0x3c7 1000\n");
  RunOptions ro;
  ro.env["ROOFPROF_SCRIPTED_PMU"] = sb.path("pmu.script").string();
  ro.env["LIBPFM_FORCE_PMU"] = "skx";
  ro.timeout = std::chrono::seconds(300);
  auto r = sb.roofprof({"run", "--backend", "perf", "--region", p.region, "--", fixture("run_omp_patterns"),
                        std::string(1, p.mode), std::to_string(threads), "1000", "1"},
                       ro);
  if (r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos) GTEST_SKIP() << "built without test seams";
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), p.region);
  const int steps = p.mode == 'a' ? 3 * threads - 2 : p.mode == 'b' ? threads : 4 * threads - 2;
  EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 1000.0 * steps) << reg.dump();
  if (p.mode != 'b') {
    expect_parts_add_up(reg);
    for (const auto& t : reg["per_thread"]) EXPECT_DOUBLE_EQ(t["flops"].get<double>(), 1000) << t.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, OmpPatternsScripted,
                         ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Values(8, 16)),
                         [](const auto& info) {
                           return std::string(1, kPatterns[std::get<0>(info.param)].mode) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "_threads";
                         });

// The in-process agent with the software counters (--backend time, the default scope): 8 threads
// in `each` at once; the region's task-clock is its threads' CPU time once, so not more than the
// process's whole CPU time (which the program prints at its end). Counting every call's process
// delta would give several times that.
TEST(OmpPatternsAgent, ConcurrentCallsCountTheProcessCpuTimeOnce) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "each", "--", fixture("run_omp_patterns"), "a", "8",
                        "3000000", "3"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const auto at = r.out.find("cpu_s=");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double cpu_s = std::atof(r.out.c_str() + at + 6);
  json reg = region(load_result(r), "each");
  EXPECT_EQ(calls(reg), 24) << reg.dump();
  ASSERT_TRUE(reg["counters"]["task-clock"].is_number()) << reg.dump();
  const double task_clock_s = reg["counters"]["task-clock"].get<double>() * 1e-9;
  EXPECT_GT(task_clock_s, 0.5 * cpu_s) << "the kernels are most of the program's work";
  // task-clock and CLOCK_PROCESS_CPUTIME_ID account a context switch apart: with 8 threads on few
  // cores switching at every barrier they differ by a few percent (5 % seen on a loaded 2-CPU
  // VM). Counting each call's process delta would give several times the process's CPU time.
  EXPECT_LE(task_clock_s, cpu_s * 1.25 + 0.01) << "no thread's CPU time twice: process " << cpu_s << " s";
  ASSERT_EQ(reg["per_thread"].size(), 8u) << reg.dump();
}

}  // namespace
}  // namespace it
