// Native counting (docs/native.md): flops counted where they run, by patched code, the default
// on a machine without hardware counters. Exact W against analytic counts, AVX-512 with masks
// included; the program's output unchanged.
#include "harness.hpp"

namespace it {
namespace {

bool host_has_avx512f() { return __builtin_cpu_supports("avx512f"); }

double flops_class(const json& reg, const std::string& c) {
  if (!reg.contains("flops_by_class") || !reg["flops_by_class"].contains(c)) return -1;
  return reg["flops_by_class"][c].get<double>();
}

// By default (no --backend) on this machine without a PMU, a program with AVX-512 intrinsics,
// masked FMAs and adds and a masked scalar subtract, gets W exactly; the emulated pass that would
// measure the bytes below L1 is skipped (the emulator cannot run AVX-512), and says so.
TEST(NativeCounting, Avx512WithMasksIsExactByDefault) {
  if (!host_has_avx512f()) GTEST_SKIP() << "this CPU has no AVX-512F";
  Sandbox sb;
  const int n = 1003, reps = 10;
  auto bare = sb.run({fixture("run_native_avx512"), std::to_string(n), std::to_string(reps)});
  ASSERT_EQ(bare.exit_code(), 0) << bare.diag();
  auto r = sb.roofprof({"run", "-r", "axpy512", "-r", "madd_ps", "-r", "sub_sd", "--", fixture("run_native_avx512"),
                        std::to_string(n), std::to_string(reps)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, bare.out);
  json doc = load_result(r);
  if (doc["backend"] != "native") GTEST_SKIP() << "auto did not pick native counting here: " << doc["backend"];
  json axpy = region(doc, "axpy512"), madd = region(doc, "madd_ps"), sub = region(doc, "sub_sd");
  EXPECT_EQ(calls(axpy), reps);
  EXPECT_EQ(axpy["flops"].get<double>(), reps * 2.0 * n) << axpy.dump();
  EXPECT_EQ(flops_class(axpy, "dp_512"), reps * 2.0 * n) << axpy.dump();
  EXPECT_EQ(madd["flops"].get<double>(), reps * double((n + 1) / 2)) << madd.dump();
  EXPECT_EQ(flops_class(madd, "sp_512"), reps * double((n + 1) / 2)) << madd.dump();
  EXPECT_EQ(sub["flops"].get<double>(), reps * double((n + 2) / 3)) << sub.dump();
  EXPECT_EQ(axpy["sources"]["flops"], "native");
  EXPECT_NE(doc["warnings"].dump().find("bytes (Q) below L1 were not measured: AVX-512 code ran"), std::string::npos)
      << doc["warnings"];
  ASSERT_TRUE(doc.contains("native_counting")) << doc.dump(1);
}

// Native counting's fault cases: a counted function with a jump table, a C++ exception thrown
// through a counted loop, a library loaded by dlopen after threads started (its code patched while
// they run). The program's output is the bare run's and each W is exact, by default and with 8
// OpenMP-free threads around.
TEST(NativeCounting, JumpTablesExceptionsAndDlopenAfterThreads) {
  Sandbox sb;
  const int n = 1000, k = 100;
  auto bare = sb.run({fixture("run_native_faults"), std::to_string(n), std::to_string(k)});
  ASSERT_EQ(bare.exit_code(), 0) << bare.diag();
  auto r = sb.roofprof({"run", "--backend", "native", "--emul-budget", "0", "-r", "switch_kernel", "-r",
                        "throwing_kernel", "-r", "late_kernel", "--", fixture("run_native_faults"), std::to_string(n),
                        std::to_string(k)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, bare.out);
  json doc = load_result(r);
  json sw = region(doc, "switch_kernel"), th = region(doc, "throwing_kernel"), late = region(doc, "late_kernel");
  EXPECT_EQ(calls(sw), 6);
  EXPECT_EQ(sw["flops"].get<double>(), 6.0 * n) << sw.dump();
  EXPECT_EQ(calls(th), 1);
  EXPECT_EQ(th["flops"].get<double>(), 2.0 * (k + 1)) << th.dump();
  EXPECT_EQ(calls(late), 1);
  EXPECT_EQ(late["flops"].get<double>(), double(n)) << late.dump();
  EXPECT_EQ(late["sources"]["flops"], "native");
  // The dlopen'd library was patched: it is in the result's native counting modules.
  bool patched = false;
  for (const auto& m : doc["native_counting"]["modules"])
    patched |= m["path"].get<std::string>().find("libnative_late.so") != std::string::npos && m["sites"] > 0;
  EXPECT_TRUE(patched) << doc["native_counting"].dump(1);
}

// FFTW's scalar plans (FFTW_NO_SIMD) execute exactly the operations fftw_flops() reports:
// W = adds + muls + 2 fmas, as under emulation (EmulLibraries.FftwScalarPlanMatchesFftwFlops).
TEST(NativeCounting, FftwScalarPlanMatchesFftwFlops) {
  for (int n : {1024, 1000}) {
    Sandbox sb;
    auto r = sb.roofprof({"run", "--backend", "native", "--emul-budget", "0", "-r", "fftw_execute", "--",
                          fixture("emul_fftw"), std::to_string(n), "scalar", "counts.txt"});
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    double add = 0, mul = 0, fma = 0;
    std::istringstream(read_text(sb.path("counts.txt"))) >> add >> mul >> fma;
    ASSERT_GT(add, 0);
    json reg = region(load_result(r), "fftw_execute");
    EXPECT_EQ(calls(reg), 1);
    EXPECT_EQ(reg["flops"].get<double>(), add + mul + 2 * fma) << "n=" << n << " " << reg.dump();
  }
}

// A place native counting cannot patch is watched: the run says it ran (W a lower bound in the
// regions open then) only when it did, and the result marks it.
TEST(NativeCounting, UnpatchedCodeThatRanIsSaidAndCodeThatDidNotIsNot) {
  for (int calls : {3, 0}) {
    Sandbox sb;
    auto r = sb.roofprof({"run", "--backend", "native", "--emul-budget", "0", "-r", "main", "--",
                          fixture("run_native_short"), std::to_string(calls)});
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json doc = load_result(r);
    json place;
    for (const auto& m : doc["native_counting"]["modules"])
      if (m["path"].get<std::string>().find("run_native_short") != std::string::npos)
        for (const auto& u : m["uncounted"])
          if (u["function"] == "short_site") place = u;
    ASSERT_FALSE(place.is_null()) << doc["native_counting"].dump(1);
    EXPECT_EQ(place["why"], "shorter than a jump (4 bytes)");
    EXPECT_EQ(place["ran"], calls > 0) << place.dump();
    const bool said = doc["warnings"].dump().find("code it could not patch ran") != std::string::npos &&
                      doc["warnings"].dump().find("short_site in run_native_short") != std::string::npos;
    EXPECT_EQ(said, calls > 0) << doc["warnings"].dump(1);
    // What it did not count: main's W lacks the multiplies.
    EXPECT_EQ(region(doc, "main")["flops"].get<double>(), 0.0);
  }
}

// Its counts live in glibc's thread control block: a program not built on glibc is never patched
// (its own data would be overwritten there). Asked for by name, a one-line error before the
// program starts; by default, what auto picks without native counting, and why.
TEST(NativeCounting, ProgramsNotBuiltOnGlibcAreNotPatched) {
  Sandbox sb;
  auto musl = sb.roofprof({"run", "--backend", "native", "-r", "main", "--", fixture("run_musl_interp")});
  EXPECT_EQ(musl.exit_code(), 2) << musl.diag();
  EXPECT_EQ(musl.err, "roofprof: --backend native: native counting keeps its counts in glibc's thread control block, "
                      "and its dynamic linker is /lib/ld-musl-x86_64.so.1, not glibc's; use --backend emul or time\n")
      << musl.diag();
  auto none = sb.roofprof({"run", "--backend", "native", "-r", "kernel", "--", fixture("run_no_libc")});
  EXPECT_EQ(none.exit_code(), 2) << none.diag();
  EXPECT_NE(none.err.find("this statically linked program has no glibc in it"), std::string::npos) << none.diag();
  auto r = sb.roofprof({"run", "--no-cache-sim", "-r", "kernel", "--", fixture("run_no_libc")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_NE(doc["backend"], "native") << r.diag();
  EXPECT_FALSE(doc.contains("native_counting")) << doc.dump(1);  // nothing planned, nothing patched
  EXPECT_NE(r.err.find("native counting keeps its counts in glibc's thread control block, and this statically "
                       "linked program has no glibc in it"), std::string::npos) << r.diag();
  // Its first instructions call the region: not stepped through before the probes are placed.
  EXPECT_EQ(calls(region(doc, "kernel")), 1) << doc.dump(1);
  // glibc's own static programs are counted natively.
  auto glibc = sb.roofprof({"run", "--backend", "native", "-r", "main", "--", fixture("run_static_app")});
  EXPECT_EQ(glibc.exit_code(), 0) << glibc.diag();
}

}  // namespace
}  // namespace it
