// Native counting run in this process: fixture modules planned, emitted into scratch within
// rel32 reach and patched; their kernels called and this thread's slots compared with the
// analytic counts, and their results with an unpatched copy's.
#include <gtest/gtest.h>

#include <csetjmp>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/unit/native/harness.hpp"

namespace roofprof::native::test {
namespace {

// `emitted_apart` nonzero: the patched copy's trampolines were emitted for another place and
// moved to theirs (rebased(), as a patch kept from an earlier run is).
struct Pair {
  LoadedModule pristine, patched;
  ModulePlan plan;
  Pair(const std::string& name, int64_t emitted_apart) : pristine(fixture_path(name)), patched(fixture_path(name)) {
    plan = patched.plan();
    patched.patch(plan, emitted_apart);
  }
};

constexpr int64_t kMoved = -(24ll << 20);  // emitted for trampolines 24 MiB lower

// Loaded once per process (ctest runs each test in its own): callable from several threads.
Pair& module(const std::string& name, int64_t emitted_apart = 0) {
  static std::mutex lock;
  static std::map<std::pair<std::string, int64_t>, std::unique_ptr<Pair>> loaded;
  const std::lock_guard<std::mutex> held(lock);
  auto& p = loaded[{name, emitted_apart}];
  if (!p) p = std::make_unique<Pair>(name, emitted_apart);
  return *p;
}

bool has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

// Runs f and returns this thread's counts while it ran.
template <class F>
Slots counted(F&& f) {
  const Slots before = read_slots();
  f();
  return delta(before, read_slots());
}

std::vector<double> ramp(int n, double from, double step) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = from + step * i;
  return v;
}

// ---- hand-written cases -------------------------------------------------------------------

TEST(NativeExec, ATightLoopCountsEveryIteration) {
  Pair& m = module("libnative_plan_cases.so");
  using Fn = double(long, const double*);
  const auto x = ramp(100, 0.25, 0.5);
  const double want = m.pristine.fn<Fn>("p_loop")(100, x.data());
  double got = 0;
  const Slots d = counted([&] { got = m.patched.fn<Fn>("p_loop")(100, x.data()); });
  EXPECT_EQ(got, want);
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 100u);
  EXPECT_EQ(total(d), 100u);
}

TEST(NativeExec, LiveFlagsAreKeptAcrossTheCounts) {
  Pair& m = module("libnative_plan_cases.so");
  using Fn = double(unsigned long, unsigned long, double, double);
  for (auto [a, b] : {std::pair{1ul, 2ul}, std::pair{2ul, 1ul}}) {
    const double want = m.pristine.fn<Fn>("p_flags_live")(a, b, 3.0, 5.0);
    double got = 0;
    const Slots d = counted([&] { got = m.patched.fn<Fn>("p_flags_live")(a, b, 3.0, 5.0); });
    EXPECT_EQ(got, want) << a << " " << b;
    EXPECT_EQ(got, a < b ? 75.0 : 80.0);
    EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], a < b ? 2u : 3u);  // the addsd after the jb runs when a >= b
  }
}

TEST(NativeExec, SitesAroundACall) {
  Pair& m = module("libnative_plan_cases.so");
  using Fn = double(double);
  double got = 0;
  const Slots d = counted([&] { got = m.patched.fn<Fn>("p_call_splits")(1.5); });
  EXPECT_EQ(got, m.pristine.fn<Fn>("p_call_splits")(1.5));
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 4u);
}

TEST(NativeExec, JumpTableCasesRunTheirOwnSites) {
  Pair& m = module("libnative_plan_cases.so");
  using Fn = double(unsigned, double, double);
  const uint64_t want_counts[] = {1, 2 /* case 1's mulsd is uncounted */, 2, 1, 0};
  for (unsigned c = 0; c < 5; ++c) {
    double got = 0;
    const Slots d = counted([&] { got = m.patched.fn<Fn>("p_switch")(c, 3.0, 4.0); });
    EXPECT_EQ(got, m.pristine.fn<Fn>("p_switch")(c, 3.0, 4.0)) << c;
    EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], want_counts[c]) << c;
  }
}

TEST(NativeExec, RipRelativeOperandsAreRewritten) {
  Pair& m = module("libnative_plan_cases.so");
  using Fn = double(double);
  double got = 0;
  const Slots d = counted([&] { got = m.patched.fn<Fn>("p_rip")(2.0); });
  EXPECT_EQ(got, 7.0);
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 2u);
}

TEST(NativeExec, ALoopInstructionRunsOutsideTheSite) {
  Pair& m = module("libnative_plan_cases.so");
  using Fn = double(long, long, long, long, double, double);
  double got = 0;
  const Slots d = counted([&] { got = m.patched.fn<Fn>("p_loop_insn")(0, 0, 0, 10, 1.0, 0.5); });
  EXPECT_EQ(got, 11.0);
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 20u);
}

TEST(NativeExec, X87AndAvxClassesOfOneSite) {
  Pair& m = module("libnative_plan_cases.so");
  const Slots d = counted([&] { m.patched.fn<void()>("p_classes")(); });
  EXPECT_EQ(d[RP_NATIVE_SP_256], 8u);
  EXPECT_EQ(d[RP_NATIVE_DP_256], 16u);
  EXPECT_EQ(d[RP_NATIVE_SP_SCALAR], 1u);
  EXPECT_EQ(d[RP_NATIVE_X87], 1u);
}

TEST(NativeExec, MovedTrampolinesRunAndCountAsEmittedOnes) {
  Pair& m = module("libnative_plan_cases.so", kMoved);
  const auto x = ramp(100, 0.25, 0.5);
  double got = 0;
  Slots d = counted([&] { got = m.patched.fn<double(long, const double*)>("p_loop")(100, x.data()); });
  EXPECT_EQ(got, m.pristine.fn<double(long, const double*)>("p_loop")(100, x.data()));
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 100u);
  const uint64_t switch_counts[] = {1, 2, 2, 1, 0};
  for (unsigned c = 0; c < 5; ++c) {
    using Fn = double(unsigned, double, double);
    d = counted([&] { got = m.patched.fn<Fn>("p_switch")(c, 3.0, 4.0); });
    EXPECT_EQ(got, m.pristine.fn<Fn>("p_switch")(c, 3.0, 4.0)) << c;
    EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], switch_counts[c]) << c;
  }
  d = counted([&] { got = m.patched.fn<double(double)>("p_rip")(2.0); });
  EXPECT_EQ(got, 7.0);
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 2u);
  d = counted([&] { got = m.patched.fn<double(double)>("p_call_splits")(1.5); });
  EXPECT_EQ(got, m.pristine.fn<double(double)>("p_call_splits")(1.5));
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 4u);
}

// ---- compiled kernels (-O2 and -O3, -mavx2 -mfma; emitted in place, and moved) -------------

class Kernels : public ::testing::TestWithParam<std::tuple<const char*, int64_t>> {
 protected:
  void SetUp() override {
    if (!has_avx2_fma()) GTEST_SKIP() << "the fixture is built for AVX2 and FMA";
  }
  Pair& m() { return module(std::get<0>(GetParam()), std::get<1>(GetParam())); }
};

TEST_P(Kernels, NothingTheyRunIsUncounted) {
  for (const Uncounted& u : m().plan.uncounted)
    EXPECT_NE(u.function.rfind("nk_", 0), 0u) << u.function << " " << u.why;
}

TEST_P(Kernels, Daxpy2n) {
  using Fn = void(int, double, const double*, double*);
  for (int n : {1000, 1003, 7}) {
    const auto x = ramp(n, 1.0, 0.5);
    auto want = ramp(n, 2.0, 0.25), got = want;
    m().pristine.fn<Fn>("nk_daxpy")(n, 1.5, x.data(), want.data());
    const Slots d = counted([&] { m().patched.fn<Fn>("nk_daxpy")(n, 1.5, x.data(), got.data()); });
    EXPECT_EQ(got, want) << n;
    EXPECT_EQ(total(d), 2u * n) << n;
  }
}

TEST_P(Kernels, DgemmTripleLoop2nCubed) {
  using Fn = void(int, const double*, const double*, double*);
  const int n = 37;
  const auto a = ramp(n * n, 0.5, 0.01), b = ramp(n * n, -1.0, 0.02);
  auto want = ramp(n * n, 0.0, 0.1), got = want;
  m().pristine.fn<Fn>("nk_dgemm")(n, a.data(), b.data(), want.data());
  const Slots d = counted([&] { m().patched.fn<Fn>("nk_dgemm")(n, a.data(), b.data(), got.data()); });
  EXPECT_EQ(got, want);
  EXPECT_EQ(total(d), 2u * n * n * n);
}

TEST_P(Kernels, SqrtDiv3n) {
  using Fn = void(int, const double*, double*);
  const int n = 1001;
  const auto x = ramp(n, 0.0, 0.75);
  std::vector<double> want(n), got(n);
  m().pristine.fn<Fn>("nk_sqrt_div")(n, x.data(), want.data());
  const Slots d = counted([&] { m().patched.fn<Fn>("nk_sqrt_div")(n, x.data(), got.data()); });
  EXPECT_EQ(got, want);
  EXPECT_EQ(total(d), 3u * n);
}

TEST_P(Kernels, SwitchDispatchedThroughAJumpTable) {
  using Fn = double(int, const int*, const double*);
  const uint64_t per_op[] = {1, 1, 2, 1, 2, 3, 1, 0};
  const int n = 800;
  std::vector<int> ops(n);
  uint64_t expect = 0;
  for (int i = 0; i < n; ++i) {
    ops[i] = (i * 7 + i / 3) % 8;
    expect += per_op[ops[i]];
  }
  const auto x = ramp(n, 1.0, 0.001);
  const double want = m().pristine.fn<Fn>("nk_dispatch")(n, ops.data(), x.data());
  double got = 0;
  const Slots d = counted([&] { got = m().patched.fn<Fn>("nk_dispatch")(n, ops.data(), x.data()); });
  EXPECT_EQ(got, want);
  EXPECT_EQ(total(d), expect);
}

TEST_P(Kernels, EachThreadCountsItsOwnWork) {
  using Fn = void(int, double, const double*, double*);
  const int n = 1000;
  const auto x = ramp(n, 1.0, 0.5);
  Fn* const daxpy = m().patched.fn<Fn>("nk_daxpy");  // loaded before the threads start
  auto worker = [&](int calls, uint64_t* counted_out) {
    auto y = ramp(n, 2.0, 0.25);
    const Slots before = read_slots();
    for (int c = 0; c < calls; ++c) daxpy(n, 1.5, x.data(), y.data());
    *counted_out = total(delta(before, read_slots()));
  };
  uint64_t a = 0, b = 0;
  std::thread ta(worker, 300, &a), tb(worker, 700, &b);
  ta.join();
  tb.join();
  EXPECT_EQ(a, 2u * n * 300);
  EXPECT_EQ(b, 2u * n * 700);
}

TEST_P(Kernels, LongjmpOutOfACountedLoop) {
  using Fn = double(int, const double*, int, std::jmp_buf*);
  const auto x = ramp(1000, 1.0, 1.0);
  std::jmp_buf env;
  Slots before = read_slots();
  volatile bool jumped = false;
  if (setjmp(env) == 0) {
    m().patched.fn<Fn>("nk_sum_until_longjmp")(1000, x.data(), 499, &env);
  } else {
    jumped = true;
  }
  const Slots d = delta(before, read_slots());
  EXPECT_TRUE(jumped);
  EXPECT_EQ(total(d), 500u);
}

INSTANTIATE_TEST_SUITE_P(Opt, Kernels,
                         ::testing::Combine(::testing::Values("libnative_kernels_O2.so", "libnative_kernels_O3.so"),
                                            ::testing::Values(int64_t(0), kMoved)));

// ---- C++ exceptions through counted code ----------------------------------------------------

TEST(NativeExec, FunctionsWithTryAndCatchAreFullyPatched) {
  if (!has_avx2_fma()) GTEST_SKIP() << "the fixture is built for AVX2 and FMA";
  Pair& m = module("libnative_throw.so");
  for (const Uncounted& u : m.plan.uncounted) EXPECT_EQ(u.function.find("nt_scale"), std::string::npos) << u.function << " " << u.why;
  // the loop in nt_scale_catch, the handler's add in nt_scale_catch.cold (after the landing pad's
  // call to __cxa_begin_catch)
  auto sites_in = [&](const std::string& name) {
    int n = 0;
    for (const Function& f : m.patched.functions())
      if (f.name == name)
        for (const Site& s : m.plan.sites) n += s.start >= f.start && s.start < f.start + f.size;
    return n;
  };
  EXPECT_GE(sites_in("nt_scale_catch"), 1);
  EXPECT_EQ(sites_in("nt_scale_catch.cold"), 1);
}

TEST(NativeExec, AnExceptionThrownThroughACountedLoop) {
  if (!has_avx2_fma()) GTEST_SKIP() << "the fixture is built for AVX2 and FMA";
  Pair& m = module("libnative_throw.so");
  using Fn = void(int, double*, double, double, double);
  const int n = 500;
  auto want = ramp(n, 0.0, 1.0), got = want;  // x*2+1 > 600 first at i = 300
  try {
    m.pristine.fn<Fn>("nt_scale_or_throw")(n, want.data(), 2.0, 1.0, 600.0);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "300");
  }
  Slots d{};
  try {
    d = counted([&] { m.patched.fn<Fn>("nt_scale_or_throw")(n, got.data(), 2.0, 1.0, 600.0); });
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "300");
  }
  EXPECT_EQ(got, want);
}

TEST(NativeExec, AnExceptionCountedUpToTheThrow) {
  if (!has_avx2_fma()) GTEST_SKIP() << "the fixture is built for AVX2 and FMA";
  Pair& m = module("libnative_throw.so");
  using Fn = void(int, double*, double, double, double);
  auto x = ramp(500, 0.0, 1.0);
  const Slots before = read_slots();
  try {
    m.patched.fn<Fn>("nt_scale_or_throw")(500, x.data(), 2.0, 1.0, 600.0);
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(total(delta(before, read_slots())), 2u * 301);
}

TEST(NativeExec, AnExceptionCaughtInsideTheCountedFunction) {
  if (!has_avx2_fma()) GTEST_SKIP() << "the fixture is built for AVX2 and FMA";
  Pair& m = module("libnative_throw.so");
  using Fn = double(int, double*, double, double, double);
  auto want = ramp(500, 0.0, 1.0), got = want;
  const double w = m.pristine.fn<Fn>("nt_scale_catch")(500, want.data(), 2.0, 1.0, 600.0);
  double g = 0;
  const Slots d = counted([&] { g = m.patched.fn<Fn>("nt_scale_catch")(500, got.data(), 2.0, 1.0, 600.0); });
  EXPECT_EQ(g, w);
  EXPECT_EQ(g, 1.5);
  EXPECT_EQ(got, want);
  EXPECT_EQ(total(d), 2u * 301 + 1);
}

// ---- AVX-512 masks, counted at run time ------------------------------------------------------

class Avx512 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  }
  Pair& m() { return module("libnative_avx512.so"); }
};

TEST_F(Avx512, EvexRipRelativeOperandsAreRewritten) {
  Pair& cases = module("libnative_plan_cases.so");
  using Fn = double(double);
  double got = 0;
  const Slots d = counted([&] { got = cases.patched.fn<Fn>("p_rip_evex")(2.0); });
  EXPECT_EQ(got, 7.0);
  EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], 2u);
}

TEST_F(Avx512, MaskFmaddCountsTheMasksLanes) {
  using Fn = void(int, double*, const double*, const double*, uint8_t);
  const int n = 64;
  const auto b = ramp(n, 1.0, 0.5), c = ramp(n, -2.0, 0.25);
  for (uint8_t mask : {uint8_t(0xa5), uint8_t(0xff), uint8_t(0)}) {
    auto want = ramp(n, 3.0, 1.0), got = want;
    m().pristine.fn<Fn>("nx_mask_fmadd")(n, want.data(), b.data(), c.data(), mask);
    const Slots d = counted([&] { m().patched.fn<Fn>("nx_mask_fmadd")(n, got.data(), b.data(), c.data(), mask); });
    EXPECT_EQ(got, want);
    EXPECT_EQ(d[RP_NATIVE_DP_512], 2u * __builtin_popcount(mask) * (n / 8)) << int(mask);
    EXPECT_EQ(total(d), d[RP_NATIVE_DP_512]);
  }
}

TEST_F(Avx512, MaskzAddCountsTheMasksLanes) {
  using Fn = void(int, float*, const float*, const float*, uint16_t);
  const int n = 64;
  std::vector<float> x(n), y(n), want(n), got(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i, y[i] = 1.0f + i;
  m().pristine.fn<Fn>("nx_maskz_add")(n, want.data(), x.data(), y.data(), 0x0f0f);
  const Slots d = counted([&] { m().patched.fn<Fn>("nx_maskz_add")(n, got.data(), x.data(), y.data(), 0x0f0f); });
  EXPECT_EQ(got, want);
  EXPECT_EQ(d[RP_NATIVE_SP_512], 8u * (n / 16));
}

TEST_F(Avx512, DaxpyWithAMaskedTail2n) {
  using Fn = void(int, double, const double*, double*);
  for (int n : {1003, 1000, 5}) {
    const auto x = ramp(n, 1.0, 0.5);
    auto want = ramp(n, 2.0, 0.25), got = want;
    m().pristine.fn<Fn>("nx_daxpy_tail")(n, 1.5, x.data(), want.data());
    const Slots d = counted([&] { m().patched.fn<Fn>("nx_daxpy_tail")(n, 1.5, x.data(), got.data()); });
    EXPECT_EQ(got, want) << n;
    EXPECT_EQ(d[RP_NATIVE_DP_512], 2u * n) << n;
  }
}

TEST_F(Avx512, AMaskedScalarAddCountsItsOneLane) {
  using Fn = double(int, const double*, uint8_t);
  const auto x = ramp(100, 1.0, 1.0);
  for (uint8_t mask : {uint8_t(1), uint8_t(0xfe)}) {
    double got = 0;
    const Slots d = counted([&] { got = m().patched.fn<Fn>("nx_mask_add_sd")(100, x.data(), mask); });
    EXPECT_EQ(got, m().pristine.fn<Fn>("nx_mask_add_sd")(100, x.data(), mask));
    EXPECT_EQ(d[RP_NATIVE_DP_SCALAR], mask & 1 ? 100u : 0u) << int(mask);
  }
}

TEST_F(Avx512, NothingIsUncountedAndMaskedInstructionsAreCountedAtRunTime) {
  for (const Uncounted& u : m().plan.uncounted) ADD_FAILURE() << u.function << " " << u.why;
  uint32_t masked = 0;
  for (const Site& s : m().plan.sites) masked += s.masked;
  EXPECT_GE(masked, 4u);  // mask_fmadd, maskz_add, the tail's fmadd, mask_add_sd
}

}  // namespace
}  // namespace roofprof::native::test
