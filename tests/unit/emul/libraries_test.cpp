// Real libraries from Debian under emulation: OpenBLAS dgemm_ and FFTW fftw_execute.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>

#include "tests/unit/emul/emul_test_util.hpp"

namespace roofprof::emul::test {
namespace {

TEST(EmulLibraries, OpenBlasDgemmIsTwoMnkPlusTheUpdateOfC) {
  // OpenBLAS's threads would only be descheduled by valgrind: one thread.
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libopenblas.so.0";
  const double m = 64, n = 64, k = 512;
  auto r = run({fixture("emul_blas_dgemm"), "64", "64", "512"}, entry_probes(lib, {"dgemm_"}), Options{});
  unsetenv("OPENBLAS_NUM_THREADS");
  ASSERT_EQ(r.instances.size(), 1u);
  double w = flops(r, r.instances[0]);
  // C = alpha A B + C: 2mnk in the kernel, then alpha times and plus C per element (2mn).
  EXPECT_GE(w, 2 * m * n * k);
  EXPECT_LE(w, 2 * m * n * k * 1.005);
  EXPECT_GE(w, 2 * m * n * k + 2 * m * n);
}

struct FftwCounts {
  double add = 0, mul = 0, fma = 0;
};

std::pair<Result, FftwCounts> fft(int n, const char* mode) {
  std::string out = std::string(::testing::TempDir()) + "emul_fftw_" + std::to_string(getpid()) + ".txt";
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libfftw3.so.3";
  auto r = run({fixture("emul_fftw"), std::to_string(n), mode, out}, entry_probes(lib, {"fftw_execute"}), Options{});
  FftwCounts c;
  std::ifstream in(out);
  in >> c.add >> c.mul >> c.fma;
  std::remove(out.c_str());
  return {std::move(r), c};
}

TEST(EmulLibraries, FftwScalarPlanMatchesFftwFlops) {
  for (int n : {1024, 1000}) {
    auto [r, c] = fft(n, "scalar");
    ASSERT_EQ(r.instances.size(), 1u);
    ASSERT_GT(c.add, 0);
    EXPECT_EQ(flops(r, r.instances[0]), c.add + c.mul + 2 * c.fma) << "n=" << n;
  }
}

TEST(EmulLibraries, FftwSimdPlanDoesMoreThanFftwFlopsSays) {
  // fftw_flops counts one operation per SIMD instruction (docs/emulation.md).
  auto [r, c] = fft(1024, "simd");
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_GT(flops(r, r.instances[0]), c.add + c.mul + 2 * c.fma);
}

}  // namespace
}  // namespace roofprof::emul::test
