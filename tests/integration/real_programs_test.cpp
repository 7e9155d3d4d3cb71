// Real programs, profiled by the names their users type, with exact W under the emulation
// backend: g++ -O3 clones, a C++ template method, a gfortran module subroutine (fixtures in
// tests/fixtures/real, built with Debian's compilers), numpy and SciPy (Debian's
// python3-numpy, python3-scipy on OpenBLAS). Sizes are small: emulation is slow.
#include <atomic>
#include <set>
#include <thread>

#include "harness.hpp"

namespace it {
namespace {

constexpr double kN = 1000;  // the fixtures' default size

// The tests of W run twice: under emulation and under native counting (docs/native.md), with the
// same exact expectations.
std::string counting_backend = "emul";

class RealProgramsW : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { counting_backend = GetParam(); }
};

json emul_run(Sandbox& sb, const std::vector<std::string>& regions, const std::vector<std::string>& program,
              RunResult* out = nullptr, std::map<std::string, std::string> env = {},
              const std::vector<std::string>& more = {}) {
  std::vector<std::string> args{"run", "--backend", counting_backend};
  if (counting_backend == "emul") args.push_back("--no-cache-sim");
  else args.insert(args.end(), {"--emul-budget", "0"});  // W only: no emulated pass for the bytes
  args.insert(args.end(), more.begin(), more.end());
  for (const auto& r : regions) args.insert(args.end(), {"--region", r});
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  RunOptions ro;
  ro.env = std::move(env);
  ro.timeout = 120s;
  auto r = sb.roofprof(args, ro);
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  if (out) *out = r;
  return load_result(r);
}

std::vector<std::string> location_symbols(const json& reg) {
  std::vector<std::string> out;
  for (const auto& l : reg["locations"]) out.push_back(l["symbol"]);
  return out;
}

TEST_P(RealProgramsW, GccO3ClonesAreTheFunction) {
  Sandbox sb;
  RunResult r;
  json doc = emul_run(sb, {"kern_axpy", "ns::dot", "triad"}, {fixture("real_clones")}, &r);
  json axpy = region(doc, "kern_axpy"), dot = region(doc, "ns::dot"), triad = region(doc, "triad");
  ASSERT_FALSE(axpy.is_null() || dot.is_null() || triad.is_null()) << doc.dump(1);
  EXPECT_EQ(calls(axpy), 20);
  EXPECT_EQ(axpy["flops"].get<double>(), 20 * 2 * kN);
  EXPECT_EQ(location_symbols(axpy),
            std::vector<std::string>{"kern_axpy(int, double, double const*, double*) [clone .constprop.0]"});
  EXPECT_EQ(calls(dot), 4);
  EXPECT_EQ(dot["flops"].get<double>(), 4 * 2 * kN);
  // triad: 3 calls of triad.part.0 from main, one of the origin, which calls triad.part.0 (one call).
  EXPECT_EQ(calls(triad), 4) << triad.dump();
  EXPECT_EQ(triad["flops"].get<double>(), 4 * (9 * kN - 2));
  // Its two functions, and the copy of its header inlined into main (a span around the call of
  // triad.part.0, which therefore counts once).
  EXPECT_EQ(location_symbols(triad),
            (std::vector<std::string>{"triad at clones.cpp:49", "triad at clones.cpp:49",
                                      "triad(int, double*, double const*, double const*, double) [clone .part.0]",
                                      "triad(int, double*, double const*, double const*, double)"}))
      << triad.dump();
  // The summary lists what each region covers.
  EXPECT_NE(r.err.find("covers triad(int, double*, double const*, double const*, double) [clone .part.0]"),
            std::string::npos) << r.diag();
}

// gcc -O2 inlines scale_add into main (no out-of-line copy exists): the region covers its
// inlined copy, measured from where control enters the copy's code to where it leaves.
TEST_P(RealProgramsW, InlinedFunctionByItsName) {
  Sandbox sb;
  json doc = emul_run(sb, {"scale_add"}, {fixture("real_inlined")});
  json reg = region(doc, "scale_add");
  ASSERT_FALSE(reg.is_null()) << doc.dump(1);
  EXPECT_EQ(calls(reg), 10) << reg.dump();
  EXPECT_EQ(reg["flops"].get<double>(), 10 * 2 * kN) << reg.dump();
  for (const std::string& s : location_symbols(reg)) EXPECT_EQ(s, "scale_add at inlined.c:18");
  // Natively (breakpoints at the copy's edges) the same calls.
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "-r", "scale_add", "-o", "native.json", "--",
                        fixture("real_inlined")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(calls(region(load_result(r, "native.json"), "scale_add")), 10);
  // `symbols` lists the copy under the name the user types.
  auto sym = sb.roofprof({"symbols", "--match", "scale_add", "--", fixture("real_inlined")});
  EXPECT_NE(sym.out.find("scale_add  (inlined at inlined.c:18)"), std::string::npos) << sym.diag();
}

// gcc -O2 inlines axpy at four call sites, each run once: a call of an inlined copy is control
// reaching its entry point, so 4 calls, exact, natively (breakpoints) and under emulation.
TEST_P(RealProgramsW, InlinedAtFourCallSitesIsFourCalls) {
  Sandbox sb;
  json doc = emul_run(sb, {"axpy"}, {fixture("real_inlined_sites")});
  json reg = region(doc, "axpy");
  ASSERT_FALSE(reg.is_null()) << doc.dump(1);
  EXPECT_EQ(calls(reg), 4) << reg.dump();
  EXPECT_EQ(reg["flops"].get<double>(), 4 * 2 * kN) << reg.dump();
  EXPECT_FALSE(reg.contains("calls_approximate")) << reg.dump();
  std::multiset<std::string> roles;
  for (const auto& l : reg["locations"]) roles.insert(l["role"].get<std::string>());
  EXPECT_EQ(roles.count("start"), 4u) << reg.dump();  // one entry point per copy
  EXPECT_EQ(roles.count("resume"), 0u) << reg.dump();
  // Natively: span patches in the program (the default; the first copy's entry point heads its
  // own loop, so that copy keeps breakpoints, lifted while it runs), and breakpoints without the
  // agent.
  for (bool agent : {true, false}) {
    std::vector<std::string> args{"run", "--backend", "time", "-q", "-r", "axpy", "-o", "native.json"};
    if (!agent) args.push_back("--no-preload");
    args.insert(args.end(), {"--", fixture("real_inlined_sites")});
    auto r = sb.roofprof(args);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json native = region(load_result(r, "native.json"), "axpy");
    EXPECT_EQ(calls(native), 4) << native.dump();
    EXPECT_EQ(native["sources"]["calls"], agent ? "breakpoint+patch" : "breakpoint") << native.dump();
  }
}

// gcc -O3 inlines poly into main's loop and vectorises it: one pass of poly's code does two of
// its source calls, and the loop's scalar tail comes back into poly's code between instructions
// of main's. Its calls are approximate and say so (result and summary); its W is exact.
TEST_P(RealProgramsW, InlinedAndFusedIntoItsCallersLoopSaysApproximate) {
  Sandbox sb;
  RunResult r;
  json doc = emul_run(sb, {"poly"}, {fixture("real_inlined_fused")}, &r);
  json reg = region(doc, "poly");
  ASSERT_FALSE(reg.is_null()) << doc.dump(1);
  EXPECT_EQ(reg["flops"].get<double>(), 4 * 1001.0) << reg.dump();  // 4 flops a source call
  ASSERT_TRUE(reg.contains("calls_approximate")) << reg.dump();
  ASSERT_EQ(reg["calls_approximate"].size(), 1u) << reg.dump();
  const std::string why = reg["calls_approximate"][0];
  EXPECT_NE(why.find("poly inlined at inlined_fused.c:"), std::string::npos) << why;
  EXPECT_NE(why.find("interleaved with its caller's"), std::string::npos) << why;
  // 500 passes of the vector loop reach the entry point; the tail comes back into the code
  // elsewhere: a continuation, no call. Not the 1001 source calls, and said so.
  EXPECT_EQ(calls(reg), 500) << reg.dump();
  EXPECT_NE(r.err.find("! calls approximate: poly inlined at inlined_fused.c:"), std::string::npos) << r.diag();
}

// gcc -O2 inlines axpy twice in a row and the first copy runs straight into the second, whose
// entry point heads its own loop: an exit of the first copy there would close and reopen a call
// on every pass of that loop (1001 calls for 2, before). One call for both, approximate and said
// so; W exact.
TEST_P(RealProgramsW, InlinedTwiceInARowIsOneApproximateCall) {
  Sandbox sb;
  json doc = emul_run(sb, {"axpy"}, {fixture("real_inlined_twice")});
  json reg = region(doc, "axpy");
  ASSERT_FALSE(reg.is_null()) << doc.dump(1);
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  EXPECT_EQ(reg["flops"].get<double>(), 2 * 2 * kN) << reg.dump();
  ASSERT_TRUE(reg.contains("calls_approximate")) << reg.dump();
  EXPECT_NE(reg["calls_approximate"][0].get<std::string>().find("runs straight into axpy at inlined_twice.c:"),
            std::string::npos)
      << reg.dump();
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "-r", "axpy", "-o", "native.json", "--",
                        fixture("real_inlined_twice")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(calls(region(load_result(r, "native.json"), "axpy")), 1);
}

// 10^5 calls of an inlined copy (scale_add on 20,000 doubles, 40,000 flops a call) measured in
// the program with the default counters: span patches at the copy's entry point and exit record
// into the agent's ring, no ptrace stop a call (breakpoints cost three stops a call, 3-10 s here,
// and the cost guard would stop counting). The whole roofprof command within 3x the bare run
// (best of two each, taken in turn; 1.8x seen under a load average of 12 on 2 cores, where a
// boundary's counter reads cost several microseconds), every call counted.
TEST(RealPrograms, ProbingAnInlinedCopyCostsAtMostThreeTimesTheBareRun) {
  Sandbox sb;
  const std::vector<std::string> prog{fixture("real_inlined"), "20000", "100000"};
  RunOptions ro;
  ro.timeout = 300s;
  std::vector<std::string> args{"run", "--backend", "time", "-q", "-r", "scale_add", "-o", "r.json", "--"};
  args.insert(args.end(), prog.begin(), prog.end());
  double bare = 1e9, probed = 1e9;
  for (int i = 0; i < 2; ++i) {
    auto b = sb.run(prog, ro);
    ASSERT_EQ(b.exit_code(), 0) << b.diag();
    bare = std::min(bare, b.status.elapsed_s);
    auto r = sb.roofprof(args, ro);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    probed = std::min(probed, r.status.elapsed_s);
    json reg = region(load_result(r, "r.json"), "scale_add");
    EXPECT_EQ(calls(reg), 100000) << reg.dump();
    EXPECT_FALSE(reg.contains("probe_cost")) << reg.dump();  // no ptrace stop worth saying
  }
  EXPECT_LE(probed, 3 * bare) << "bare " << bare << " s, roofprof " << probed << " s";
}

// The span patches of an inlined copy are timed like entries and returns (compensation): main,
// which runs the copy 100,000 times, gets their measured time subtracted, at least a clock read
// for each of the 200,000 boundaries (about 1 ms); without it only main's own entry's part.
TEST(RealPrograms, AnInlinedCopysSpanPatchesAreCompensatedInTheFunctionAroundThem) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "-r", "main", "-r", "scale_add", "-o", "r.json", "--",
                        fixture("real_inlined"), "20000", "100000"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "r.json");
  EXPECT_EQ(calls(region(doc, "scale_add")), 100000);
  const json& outer = region(doc, "main");
  ASSERT_TRUE(outer.contains("compensation")) << outer.dump();
  EXPECT_GT(outer["compensation"]["measured_s"].get<double>(), 200000 * 5e-9) << outer.dump();
}

TEST(RealPrograms, CloneNamesAsSuggestedAreAccepted) {
  Sandbox sb;
  for (std::string name : {"ns::dot<double> [clone .isra.0]", "kern_axpy", "ns::dot<double>",
                           "ns::dot(ns::Vec,ns::Vec)"}) {
    auto r = sb.roofprof({"run", "--backend", "time", "-q", "--region", name, "--", fixture("real_clones")});
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json reg = region(load_result(r), name);
    EXPECT_EQ(calls(reg), name.find("dot") != std::string::npos ? 4 : 20) << name << reg.dump();
  }
}

TEST_P(RealProgramsW, CxxTemplateMethodByTheNameUsersType) {
  Sandbox sb;
  json doc = emul_run(sb, {"ns::Solver::step", "ns::scale(double,double)"}, {fixture("real_template")});
  json step = region(doc, "ns::Solver::step");
  EXPECT_EQ(calls(step), 5) << doc.dump(1);
  EXPECT_EQ(step["flops"].get<double>(), 5 * 2 * kN);
  EXPECT_EQ(location_symbols(step), std::vector<std::string>{"ns::Solver<double>::step(int)"});
  json scale = region(doc, "ns::scale(double,double)");
  EXPECT_EQ(calls(scale), 2);
  EXPECT_EQ(scale["flops"].get<double>(), 2);
}

TEST(RealPrograms, BareNamePrefersTheProgramOverLibc) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "step", "--", fixture("real_template")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  json step = region(doc, "step");
  EXPECT_EQ(calls(step), 5) << doc.dump(1);
  for (const auto& l : step["locations"])
    EXPECT_EQ(l["module"].get<std::string>().find("libc"), std::string::npos) << step.dump();
  EXPECT_NE(doc["warnings"].dump().find("left out: step in libc.so.6"), std::string::npos) << doc["warnings"];
  EXPECT_NE(r.err.find("left out: step in libc.so.6"), std::string::npos) << r.diag();
}

TEST_P(RealProgramsW, GfortranModuleSubroutine) {
  Sandbox sb;
  for (std::string name : {"kernel", "mymod::kernel", "__mymod_MOD_kernel"}) {
    json doc = emul_run(sb, {name}, {fixture("real_fortran")});
    json reg = region(doc, name);
    EXPECT_EQ(calls(reg), 7) << name << doc.dump(1);
    EXPECT_EQ(reg["flops"].get<double>(), 7 * 2 * kN) << name;
  }
}

// A generic interface is its specific procedures (gfortran emits no symbol or DWARF for the
// generic name: they are found as calbec_*), and a name a module re-exports with USE is the
// procedure of the module it comes from; with DWARF and without.
TEST_P(RealProgramsW, GfortranGenericInterfaceAndReexportedName) {
  Sandbox sb;
  for (std::string program : {"real_fortran_generic_g", "real_fortran_generic_nog"}) {
    for (std::string name : {"calbec", "calbec_m::calbec"}) {
      json doc = emul_run(sb, {name}, {fixture(program)});
      json reg = region(doc, name);
      EXPECT_EQ(calls(reg), 5) << program << " " << name << doc.dump(1);
      EXPECT_EQ(reg["flops"].get<double>(), 5 * 2 * kN) << program << " " << name;
    }
    json doc = emul_run(sb, {"fft_scalar::cft_1z"}, {fixture(program)});
    json reg = region(doc, "fft_scalar::cft_1z");
    EXPECT_EQ(calls(reg), 4) << program << doc.dump(1);
    EXPECT_EQ(reg["flops"].get<double>(), 4 * 2 * kN) << program;
  }
}

// numpy's a @ b calls OpenBLAS's cblas_dgemm, loaded by dlopen from numpy's extension module.
TEST_P(RealProgramsW, NumpyMatmulIsCblasDgemm) {
  if (!fs::exists("/usr/lib/python3/dist-packages/numpy")) GTEST_SKIP() << "python3-numpy is not installed";
  Sandbox sb;
  // OpenBLAS also scales C by beta (n^2 flops; 2 n^2 with its AVX-512 kernel, which native
  // counting sees where the CPU has it): 2n^3 is within 0.5% from n = 100 on (n = 400 on).
  const int n = counting_backend == "emul" ? 120 : 480;
  const std::string size = std::to_string(n);
  json doc = emul_run(sb, {"cblas_dgemm"},
                      {"/usr/bin/python3", "-c",
                       "import numpy as np\na = np.ones((" + size + ", " + size + "))\nb = a @ a\nc = b @ a\n"
                       "print(c[0, 0])"},
                      nullptr, {{"OPENBLAS_NUM_THREADS", "1"}});
  json reg = region(doc, "cblas_dgemm");
  ASSERT_EQ(calls(reg), 2) << doc.dump(1);
  double w = reg["flops"].get<double>(), expected = 2 * 2.0 * n * n * n;
  EXPECT_NEAR(w, expected, expected * 0.005) << reg.dump();
}

// Threads that keep every core busy while they live: a loaded machine, where a new thread is
// slower to reach its first stop.
class BusyCores {
 public:
  BusyCores() {
    for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()); ++i)
      spinners_.emplace_back([this] {
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
  }
  ~BusyCores() {
    stop_ = true;
    for (auto& t : spinners_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

// The same on eight OpenBLAS threads (as many as the machine lets OpenBLAS start): the region's
// W is every thread's (scope process), on every run. Native counting read a new thread's slots
// only if the thread had stopped when its parent's clone event came: on a loaded machine, as
// here, runs counted the calling thread's part alone (half of W on two cores).
TEST_P(RealProgramsW, NumpyMatmulOnEightOpenBlasThreadsCountsEveryThread) {
  if (!fs::exists("/usr/lib/python3/dist-packages/numpy")) GTEST_SKIP() << "python3-numpy is not installed";
  const BusyCores busy;
  const int n = counting_backend == "emul" ? 120 : 480;
  const std::string size = std::to_string(n);
  std::vector<double> ws;
  for (int run = 0; run < 2; ++run) {
    Sandbox sb;
    json doc = emul_run(sb, {"cblas_dgemm"},
                        {"/usr/bin/python3", "-c",
                         "import numpy as np\na = np.ones((" + size + ", " + size + "))\nb = a @ a\nc = b @ a\n"
                         "print(c[0, 0])"},
                        nullptr, {{"OPENBLAS_NUM_THREADS", "8"}});
    json reg = region(doc, "cblas_dgemm");
    ASSERT_EQ(calls(reg), 2) << doc.dump(1);
    EXPECT_EQ(doc["scope"], "process");
    ws.push_back(reg["flops"].get<double>());
    const double expected = 2 * 2.0 * n * n * n;
    EXPECT_NEAR(ws.back(), expected, expected * 0.005) << "run " << run << ": " << reg.dump();
  }
  EXPECT_EQ(ws[0], ws[1]);
}

// SciPy's solve factorises with LAPACK's dgetrf_ (in OpenBLAS's LAPACK).
TEST_P(RealProgramsW, ScipySolveCallsDgetrf) {
  if (!fs::exists("/usr/lib/python3/dist-packages/scipy")) GTEST_SKIP() << "python3-scipy is not installed";
  Sandbox sb;
  json doc = emul_run(sb, {"dgetrf_"},
                      {"/usr/bin/python3", "-c",
                       "import numpy as np, scipy.linalg as la\na = np.eye(40) * 4 + np.ones((40, 40))\n"
                       "x = la.solve(a, np.ones(40))\nprint(x[0])"},
                      nullptr, {{"OPENBLAS_NUM_THREADS", "1"}});
  json reg = region(doc, "dgetrf_");
  ASSERT_EQ(calls(reg), 1) << doc.dump(1);
  // One call, grouped by its arguments, against LAWN 41's count for n = 40 (41,900 flops).
  // OpenBLAS's recursive LU does more (46,645 here, with its Haswell kernels): W is what ran.
  ASSERT_EQ(reg["groups"].size(), 1u) << reg.dump();
  EXPECT_EQ(reg["groups"][0]["key"], "m=40,n=40");
  EXPECT_DOUBLE_EQ(reg["groups"][0]["expected_work"].get<double>(), 41900);
  double w = reg["flops"].get<double>();
  EXPECT_GE(w, 41900) << reg.dump();
  EXPECT_LE(w, 1.2 * 41900) << reg.dump();
}

// A span whose START is inside a loop: the program stops once, not once per iteration. The run
// takes at most 3x the run of the same program with a region that traps once (main), and W is
// exact: 2 flops per iteration.
TEST_P(RealProgramsW, SpanStartingInsideALoop) {
  Sandbox sb;
  std::string src = "tests/fixtures/real/span_loop.c";
  std::string span = "sum=span_loop.c:" + std::to_string(line_of(src, "SPAN_START")) +
                     "..span_loop.c:" + std::to_string(line_of(src, "SPAN_STOP"));
  auto timed = [&](const std::vector<std::string>& region_args) {
    std::vector<std::string> args{"run", "--backend", "time", "-q"};
    args.insert(args.end(), region_args.begin(), region_args.end());
    args.insert(args.end(), {"--", fixture("real_span_loop")});
    auto r = sb.roofprof(args);
    EXPECT_EQ(r.exit_code(), 0) << r.diag();
    return r;
  };
  // The reference: the same STOP line, a START that is reached once (the line table is read alike).
  auto bare = timed({"--span", "once=main..span_loop.c:" + std::to_string(line_of(src, "SPAN_STOP"))});
  auto with_span = timed({"--span", span});
  EXPECT_LT(with_span.status.elapsed_s, 3 * bare.status.elapsed_s + 0.05) << with_span.diag();
  json reg = region(load_result(with_span), "sum");
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  json doc = emul_run(sb, {}, {fixture("real_span_loop"), "1000"}, nullptr, {}, {"--span", span});
  EXPECT_EQ(region(doc, "sum")["flops"].get<double>(), 2 * 1000.0) << doc.dump(1);
}

INSTANTIATE_TEST_SUITE_P(Backends, RealProgramsW, ::testing::Values("emul", "native"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace it
