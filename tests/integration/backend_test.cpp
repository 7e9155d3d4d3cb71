// Which backend `roofprof run` measures with, and the emulation backend through the CLI.
#include <algorithm>

#include "harness.hpp"

namespace it {
namespace {

// Whether `roofprof doctor` finds usable FP counters on this machine.
bool machine_has_fp_counters(Sandbox& sb) {
  auto d = sb.roofprof({"doctor"});
  return d.out.find("ok   FP counters") != std::string::npos;
}

// The emulation engine is Valgrind 3.24 or newer, set up by `make test` itself on
// Debian 12 (whose own is 3.19: scripts/install-deps.sh unpacks Debian 13's into a private
// prefix), and doctor names it and says that it cannot run AVX-512 code.
TEST(Backend, EmulationEngineIsValgrind324OrNewer) {
  Sandbox sb;
  auto d = sb.roofprof({"doctor"});
  const size_t at = d.out.find("valgrind             valgrind ");
  ASSERT_NE(at, std::string::npos) << d.out;
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(d.out.c_str() + at + 30, "%d.%d", &major, &minor), 2) << d.out.substr(at, 80);
  EXPECT_TRUE(major > 3 || (major == 3 && minor >= 24)) << d.out.substr(at, 120);
  EXPECT_NE(d.out.find("AVX-512", at), std::string::npos) << d.out.substr(at, 200);
}

TEST(Backend, AutoSaysWhichBackendItPicked) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "daxpy", "--", fixture("emul_kernels_O2"), "counts"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json res = load_result(r);
  std::string backend = res["backend"];
  EXPECT_NE(r.err.find("roofprof: backend " + backend + ": "), std::string::npos) << r.diag();
  // Without FP counters (like the development VM), native counting gives W.
  EXPECT_EQ(backend, machine_has_fp_counters(sb) ? "perf" : "native") << r.diag();
}

TEST(Backend, PerfWithoutAPmuIsBadInput) {
  Sandbox sb;
  if (machine_has_fp_counters(sb)) GTEST_SKIP() << "this machine has usable FP counters";
  auto r = sb.roofprof({"run", "--backend", "perf", "--region", "daxpy", "--", fixture("emul_kernels_O2"), "counts"});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line expected\n" << r.diag();
}

TEST(Backend, EmulatedWorkIsExactThroughTheCli) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "--region", "daxpy", "--region", "dgemm", "--",
                        fixture("emul_kernels_O3_avx2_fma"), "counts"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json res = load_result(r);
  json daxpy = region(res, "daxpy");
  EXPECT_EQ(calls(daxpy), 2);
  EXPECT_DOUBLE_EQ(daxpy["flops"].get<double>(), 2.0 * (1000 + 1003)) << daxpy.dump();
  EXPECT_EQ(daxpy["sources"]["flops"], "emul");
  EXPECT_DOUBLE_EQ(daxpy["bytes"]["L1"]["write"].get<double>(), 8.0 * (1000 + 1003)) << daxpy.dump();
  json dgemm = region(res, "dgemm");
  EXPECT_DOUBLE_EQ(dgemm["flops"].get<double>(), 2.0 * 24 * 24 * 24) << dgemm.dump();
  EXPECT_TRUE(dgemm["bytes"]["DRAM"]["read"].is_null()) << "no cache simulation: DRAM unknown, not 0";
  // Time still comes from the native run.
  EXPECT_GT(daxpy["time_s"].get<double>(), 0.0);
  EXPECT_EQ(daxpy["sources"]["time"], "clock");
}

// A hierarchy small enough on every host that the fixture's FLUSH evicts its every level: the
// simulated caches are given (--cache-geometry), never the host's, which may hold 508 MB.
constexpr const char* kSmallCaches = "L1=32K:8:64,L2=256K:4:64,L3=2M:16:64";
constexpr const char* kFlush = "8388608";  // 8 MiB: four times that L3, more than L2 and L3 hold together

// The simulated last level is inclusive or non-inclusive (victim) as asked; the result
// records the hierarchy and the summary's headline says it. As nobody.
TEST(Backend, SimulatedLastLevelIsAsAskedAndTheResultSaysWhich) {
  Sandbox sb;
  RunOptions nobody;
  nobody.unprivileged = true;
  nobody.timeout = 120s;
  json last[2];  // the bytes at the last level, inclusive or not
  for (int inclusive : {0, 1}) {
    auto r = sb.roofprof({"run", "--backend", "emul", "--cache-geometry", kSmallCaches, "--cache-last-level",
                          inclusive ? "inclusive" : "non-inclusive", "--region", "daxpy", "--",
                          fixture("emul_kernels_O2"), "cache", "daxpy", "32768", kFlush}, nobody);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json res = load_result(r);
    ASSERT_EQ(res["simulated_caches"].size(), 3u) << res.dump();
    EXPECT_TRUE(res["simulated_caches"][0]["inclusive"].is_null());
    EXPECT_EQ(res["simulated_caches"].back()["inclusive"], bool(inclusive));
    const std::string said = inclusive ? " inclusive\n" : " non-inclusive\n";
    EXPECT_NE(r.err.find("; simulated caches L1 32K/8, L2 256K/4, L3 2M/16" + said), std::string::npos) << r.diag();
    last[inclusive] = region(res, "daxpy")["bytes"]["L3"];
  }
  // Cold daxpy (x and y, 16 n bytes = 512 KiB, evicted by 8 MiB) from DRAM: through an inclusive
  // last level, past a non-inclusive one.
  EXPECT_GT(last[1]["read"].get<double>(), 16 * 32768 * 0.9) << last[1].dump();
  EXPECT_LT(last[0]["read"].get<double>(), 16 * 32768 * 0.1) << last[0].dump();
  auto bad = sb.roofprof({"run", "--backend", "emul", "--cache-last-level", "exclusive", "--region", "daxpy", "--",
                          fixture("emul_kernels_O2"), "counts"});
  EXPECT_EQ(bad.exit_code(), 2) << bad.diag();
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.diag();
}

// --cache-geometry: the emulated run simulates exactly the hierarchy given, whatever the host's
// caches; the result records it level by level (its last level inclusive: no host to ask), the
// headline names it, and its DRAM traffic is that hierarchy's (cold daxpy: x and y read, y
// written, 24 n bytes). Text the simulator cannot model, or an option that cannot apply, is bad
// input in one line.
TEST(Backend, ExplicitCacheGeometryIsSimulatedAndRecordedExactly) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 120s;
  auto r = sb.roofprof({"run", "--backend", "emul", "--cache-geometry", kSmallCaches, "--region", "daxpy", "--",
                        fixture("emul_kernels_O2"), "cache", "daxpy", "32768", kFlush}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json res = load_result(r);
  const json expected = json::parse(R"([
    {"name": "L1", "size": 32768, "ways": 8, "line": 64, "inclusive": null},
    {"name": "L2", "size": 262144, "ways": 4, "line": 64, "inclusive": true},
    {"name": "L3", "size": 2097152, "ways": 16, "line": 64, "inclusive": true}])");
  EXPECT_EQ(res["simulated_caches"], expected) << res["simulated_caches"].dump();
  EXPECT_NE(r.err.find("; simulated caches L1 32K/8, L2 256K/4, L3 2M/16 inclusive\n"), std::string::npos)
      << r.diag();
  const json dram = region(res, "daxpy")["bytes"]["DRAM"];
  EXPECT_NEAR(dram["read"].get<double>(), 16 * 32768, 16 * 32768 * 0.05) << dram.dump();
  EXPECT_NEAR(dram["write"].get<double>(), 8 * 32768, 8 * 32768 * 0.05) << dram.dump();

  const std::vector<std::vector<std::string>> bad_runs = {
      {"--backend", "emul", "--cache-geometry", "L1=32K:8"},                        // malformed
      {"--backend", "emul", "--cache-geometry", "L1=32K:8:48"},                     // line not a power of two
      {"--backend", "emul", "--cache-geometry", "L1=1000:8:64"},                    // not sets * ways * line
      {"--backend", "emul", "--no-cache-sim", "--cache-geometry", kSmallCaches},    // nothing simulated
      {"--backend", "time", "--cache-geometry", kSmallCaches},                      // no emulated run
  };
  for (const auto& opts : bad_runs) {
    std::vector<std::string> argv{"run"};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.insert(argv.end(), {"--region", "daxpy", "--", fixture("emul_kernels_O2"), "counts"});
    auto b = sb.roofprof(argv);
    EXPECT_EQ(b.exit_code(), 2) << b.diag();
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.diag();
    EXPECT_NE(b.err.find("--cache"), std::string::npos) << b.diag();
  }
}

// A VM's CPUID reports its host's whole socket as the last level (508 MB on the
// development VM's Zen 5 host). A 256 MiB stream (dsum over 32 Mi doubles, just written by the
// program) then stays in the simulated L3: its DRAM traffic is about 0, and the result says the
// geometry was the host's ("reported") with a warning. `--cache L1=48K/12,L2=1M/8,L3=32M/16` (the
// 32 MiB one CCD's core can use) gives at least 0.9 of its compulsory 256 MiB, and the result says
// "option". The host's caches are ROOFPROF_HOST_CACHES's (the suite's seam), whatever this host has.
TEST(Backend, StreamBeyondTheGivenLastLevelComesFromDram) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 300s;
  ro.env["ROOFPROF_HOST_CACHES"] = "L1=48K:12:64,L2=1M:8:64,L3=508M:16:64";
  constexpr double kStream = 8.0 * (32 << 20);  // bytes dsum reads
  auto run = [&](std::vector<std::string> cache) {
    std::vector<std::string> argv{"run", "--backend", "emul", "--region", "dsum"};
    argv.insert(argv.end(), cache.begin(), cache.end());
    argv.insert(argv.end(), {"--", fixture("emul_kernels_O2"), "cache", "dsum", std::to_string(32 << 20), "0"});
    auto r = sb.roofprof(argv, ro);
    EXPECT_EQ(r.exit_code(), 0) << r.diag();
    return load_result(r);
  };
  const json reported = run({});
  EXPECT_EQ(reported["simulated_caches_source"], "reported") << reported.dump();
  EXPECT_EQ(reported["simulated_caches"].back()["size"], 508ull << 20);
  EXPECT_NE(reported["warnings"].dump().find("reports a 508M L3"), std::string::npos) << reported["warnings"].dump();
  EXPECT_LT(region(reported, "dsum")["bytes"]["DRAM"]["read"].get<double>(), 0.01 * kStream)
      << "the stream fits the reported L3: " << region(reported, "dsum")["bytes"].dump();

  const json given = run({"--cache", "L1=48K/12,L2=1M/8,L3=32M/16"});
  EXPECT_EQ(given["simulated_caches_source"], "option") << given.dump();
  EXPECT_EQ(given["simulated_caches"].back()["size"], 32ull << 20);
  EXPECT_EQ(given["warnings"].dump().find("reports a"), std::string::npos) << given["warnings"].dump();
  const json dsum = region(given, "dsum");
  EXPECT_DOUBLE_EQ(dsum["flops"].get<double>(), double(32 << 20)) << dsum.dump();
  EXPECT_GE(dsum["bytes"]["DRAM"]["read"].get<double>(), 0.9 * kStream) << dsum["bytes"].dump();
  EXPECT_LE(dsum["bytes"]["DRAM"]["read"].get<double>(), 1.01 * kStream) << dsum["bytes"].dump();
}

// The measured hierarchy. A ceilings file whose sweep found the last level's knee at
// 32 MiB (roofprof ceilings' measured_caches) under a reported 508 MB L3 makes the emulated run
// simulate a 32 MiB L3 (whole sets of its 16 ways): the 256 MiB stream gets at least 0.9 of its
// compulsory DRAM reads, the result says "measured" and has no warning about the reported size.
// L1 and L2 (measured near its reported size, and without a knee) stay as reported. A file that is not a ceilings
// file, or --ceilings beside --cache, is bad input in one line.
TEST(Backend, StreamBeyondTheMeasuredLastLevelComesFromDram) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 300s;
  ro.env["ROOFPROF_HOST_CACHES"] = "L1=48K:12:64,L2=1M:8:64,L3=508M:16:64";
  write_text(sb.path("measured.json"), R"({"schema": "roofprof.ceilings/1",
    "machine": {"cpu_model": "Test CPU", "cores": 2, "kernel": "6.1.0", "microcode": "0x1"},
    "caches": [{"level": 1, "size_bytes": 49152, "line_bytes": 64, "shared_by_cpus": 1},
               {"level": 2, "size_bytes": 1048576, "line_bytes": 64, "shared_by_cpus": 1},
               {"level": 3, "size_bytes": 532676608, "line_bytes": 64, "shared_by_cpus": 2}],
    "measured_caches": [{"level": 1, "effective_bytes": 45056}, {"level": 2, "effective_bytes": null},
                        {"level": 3, "effective_bytes": 33554432}],
    "isas": ["scalar"],
    "method": {"mode": "quick", "timer": "rdtscp+lfence", "timer_ghz": 2.6, "timer_overhead_ns": 10,
               "sample_ms": 20, "samples": 3, "core_model": null,
               "parts": ["bandwidth", "hierarchy"], "measured_at": "2026-11-26T17:00:00Z", "seconds": 30},
    "frequency": [], "compute": [], "bandwidth": [], "latency": [], "sweep": []})");
  constexpr double kStream = 8.0 * (32 << 20);  // bytes dsum reads
  auto r = sb.roofprof({"run", "--backend", "emul", "--ceilings", "measured.json", "--region", "dsum", "--",
                        fixture("emul_kernels_O2"), "cache", "dsum", std::to_string(32 << 20), "0"},
                       ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json res = load_result(r);
  EXPECT_EQ(res["simulated_caches_source"], "measured") << res.dump();
  const json expected = json::parse(R"([
    {"name": "L1", "size": 49152, "ways": 12, "line": 64, "inclusive": null},
    {"name": "L2", "size": 1048576, "ways": 8, "line": 64, "inclusive": true},
    {"name": "L3", "size": 33554432, "ways": 16, "line": 64, "inclusive": true}])");
  EXPECT_EQ(res["simulated_caches"], expected) << res["simulated_caches"].dump();
  EXPECT_EQ(res["warnings"].dump().find("reports a"), std::string::npos) << res["warnings"].dump();
  EXPECT_NE(r.err.find("simulating the measured caches L1=48K:12:64,L2=1M:8:64,L3=32M:16:64 (from measured.json)"),
            std::string::npos)
      << r.diag();
  const json dsum = region(res, "dsum");
  EXPECT_GE(dsum["bytes"]["DRAM"]["read"].get<double>(), 0.9 * kStream) << dsum["bytes"].dump();
  EXPECT_LE(dsum["bytes"]["DRAM"]["read"].get<double>(), 1.01 * kStream) << dsum["bytes"].dump();

  write_text(sb.path("not-ceilings.json"), R"({"schema": "roofprof.result/1"})");
  const std::vector<std::vector<std::string>> bad_runs = {
      {"--ceilings", "not-ceilings.json"},
      {"--ceilings", "no-such-file.json"},
      {"--ceilings", "measured.json", "--cache", "L1=48K/12,L2=1M/8,L3=32M/16"},
  };
  for (const auto& opts : bad_runs) {
    std::vector<std::string> argv{"run", "--backend", "emul"};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.insert(argv.end(), {"--region", "dsum", "--", fixture("emul_kernels_O2"), "counts"});
    auto b = sb.roofprof(argv, ro);
    EXPECT_EQ(b.exit_code(), 2) << b.diag();
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.diag();
  }
}

// --cache also takes a file holding the levels (lines and spaces as commas, # comments) and the
// last level's inclusion as its last item; the older name --cache-geometry is the same option.
// A missing file, or an inclusion that contradicts --cache-last-level, is bad input in one line.
TEST(Backend, CacheOptionTakesAFileAndTheLastLevelsInclusion) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 120s;
  write_text(sb.path("caches.txt"), "# the development VM's CCD\nL1=32K/8 L2=256K/4\nL3=2M/16\nnon-inclusive\n");
  auto r = sb.roofprof({"run", "--backend", "emul", "--cache", "caches.txt", "--region", "daxpy", "--",
                        fixture("emul_kernels_O2"), "cache", "daxpy", "32768", kFlush}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json res = load_result(r);
  const json expected = json::parse(R"([
    {"name": "L1", "size": 32768, "ways": 8, "line": 64, "inclusive": null},
    {"name": "L2", "size": 262144, "ways": 4, "line": 64, "inclusive": true},
    {"name": "L3", "size": 2097152, "ways": 16, "line": 64, "inclusive": false}])");
  EXPECT_EQ(res["simulated_caches"], expected) << res["simulated_caches"].dump();
  EXPECT_EQ(res["simulated_caches_source"], "option");

  const std::vector<std::vector<std::string>> bad_runs = {
      {"--cache", "no-such-file"},
      {"--cache", "L1=32K/8,L2=256K/4,inclusive", "--cache-last-level", "non-inclusive"},
      {"--cache", "L1=32K/8:64"},
      {"--cache", kSmallCaches, "--cache-geometry", kSmallCaches},
  };
  for (const auto& opts : bad_runs) {
    std::vector<std::string> argv{"run", "--backend", "emul"};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.insert(argv.end(), {"--region", "daxpy", "--", fixture("emul_kernels_O2"), "counts"});
    auto b = sb.roofprof(argv);
    EXPECT_EQ(b.exit_code(), 2) << b.diag();
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.diag();
  }
}

TEST(Backend, RegionTheEmulatedRunNeverReachedHasUnknownWorkNotZero) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "emul", "--region", "work", "--", fixture("run_native_only")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json res = load_result(r);
  json reg = region(res, "work");
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  EXPECT_TRUE(reg["flops"].is_null()) << "the emulated run's 0 was not measured: " << reg.dump();
  EXPECT_TRUE(reg["bytes"]["L1"]["read"].is_null()) << reg.dump();
  EXPECT_NE(res["warnings"].dump().find("none under emulation"), std::string::npos) << res["warnings"].dump();
}

TEST(Backend, Avx512UnderEmulationFailsClearlyAndKeepsTheNativeRun) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "emul", "-q", "--region", "main", "-o", "out.json", "--",
                        fixture("emul_avx512")});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_NE(r.err.find("AVX-512"), std::string::npos) << r.diag();
  json res = json::parse(read_text(sb.path("out.json")));
  json reg = region(res, "main");
  EXPECT_EQ(calls(reg), 1);
  EXPECT_TRUE(reg["flops"].is_null());
}

}  // namespace
}  // namespace it
