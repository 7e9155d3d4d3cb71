// What counting costs a kernel where it runs (docs/benchmarks.md, "Native counting: the
// trampolines' cost"): the fixture kernels of tests/fixtures/native loaded twice in this process,
// one copy patched (tests/unit/native/harness.hpp, as the unit tests do), the same calls timed in
// both, alternating, best of 7 runs each, thread CPU time.
//   bench_native_patch FIXTURES_DIR
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "tests/unit/native/harness.hpp"

using namespace roofprof::native;

namespace {

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double best_of(int runs, const std::function<void()>& f) {
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const double t0 = cpu_now();
    f();
    best = std::min(best, cpu_now() - t0);
  }
  return best;
}

void compare(const char* what, const std::function<void(bool patched)>& call) {
  double pristine = 1e30, patched = 1e30;
  for (int round = 0; round < 7; ++round) {
    pristine = std::min(pristine, best_of(1, [&] { call(false); }));
    patched = std::min(patched, best_of(1, [&] { call(true); }));
  }
  std::printf("%-40s pristine %.4f s  patched %.4f s  patched/pristine %.2f\n", what, pristine, patched, patched / pristine);
}

}  // namespace

int main() {
  test::LoadedModule pristine(test::fixture_path("libnative_kernels_O3.so")), patched(test::fixture_path("libnative_kernels_O3.so"));
  patched.patch(patched.plan());
  auto fn = [&](bool p, const char* name) { return (p ? patched : pristine).fn<void>(name); };

  using Axpy = void(int, double, const double*, double*);
  for (int n : {1000, 100000}) {
    std::vector<double> x(n, 1.0), y(n, 2.0);
    const int calls = int(2e8 / n);
    char what[64];
    std::snprintf(what, sizeof what, "daxpy n=%d x%d (-O3 -mavx2 -mfma)", n, calls);
    compare(what, [&](bool p) {
      auto* f = reinterpret_cast<Axpy*>(fn(p, "nk_daxpy"));
      for (int c = 0; c < calls; ++c) f(n, 1e-9, x.data(), y.data());
    });
  }
  using Gemm = void(int, const double*, const double*, double*);
  const int n = 300;
  std::vector<double> a(n * n, 1.0), b(n * n, 1.0), c(n * n, 0.0);
  compare("triple-loop dgemm n=300 (-O3 -mavx2 -mfma)", [&](bool p) {
    reinterpret_cast<Gemm*>(fn(p, "nk_dgemm"))(n, a.data(), b.data(), c.data());
  });
  using SqrtDiv = void(int, const double*, double*);
  std::vector<double> x(100000, 2.0), y(100000);
  compare("sqrt(x)/(x+1) n=100000 x200", [&](bool p) {
    auto* f = reinterpret_cast<SqrtDiv*>(fn(p, "nk_sqrt_div"));
    for (int k = 0; k < 200; ++k) f(100000, x.data(), y.data());
  });
}
