// Exact W and L1 bytes of the fixture kernels at -O0, -O2, -O3 and -O3 -mavx2 -mfma.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "tests/unit/emul/emul_test_util.hpp"

namespace roofprof::emul::test {
namespace {

const std::vector<std::string> kKernels{"daxpy", "saxpy", "dgemv", "sgemv", "dgemm", "sgemm", "sqrt_div", "x87_dot"};
enum { DAXPY, SAXPY, DGEMV, SGEMV, DGEMM, SGEMM, SQRT_DIV, X87_DOT };

// One valgrind run per binary, shared by the tests of that binary.
const Result& counts_run(const std::string& binary) {
  static std::map<std::string, Result> runs;
  auto it = runs.find(binary);
  if (it == runs.end()) {
    std::string path = fixture(binary);
    it = runs.emplace(binary, run({path, "counts"}, entry_probes(path, kKernels), Options{})).first;
  }
  return it->second;
}

class Kernels : public ::testing::TestWithParam<std::string> {
 protected:
  const Result& r() { return counts_run(GetParam()); }
  bool o0() const { return GetParam() == "emul_kernels_O0"; }
};

TEST_P(Kernels, ProgramExitsNormally) {
  EXPECT_EQ(r().exit_code, 0);
  EXPECT_EQ(r().signal, 0);
  EXPECT_EQ(r().instances.size(), 10u);
  for (const auto& i : r().instances) EXPECT_EQ(i.reason, regions::CloseReason::Return);
}

TEST_P(Kernels, AxpyIsTwoFlopsPerElementPerCall) {
  auto d = of_region(r(), DAXPY), s = of_region(r(), SAXPY);
  ASSERT_EQ(d.size(), 2u);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(flops(r(), d[0]), 2000);
  EXPECT_EQ(flops(r(), d[1]), 2006);
  EXPECT_EQ(flops_of(r(), d[1], "dp"), 2006);
  EXPECT_EQ(flops(r(), s[0]), 2000);
  // Counted like FP_ARITH_INST_RETIRED, per instruction: plain -O3 finishes saxpy's
  // remainder of 3 with a 4-lane mulps + addps on 2 loaded elements (movq) and one scalar
  // element, so 4 counted flops work on don't-care lanes (docs/emulation.md).
  double partial = GetParam() == "emul_kernels_O3" ? 4 : 0;
  EXPECT_EQ(flops(r(), s[1]), 2006 + partial);
  EXPECT_EQ(flops_of(r(), s[1], "sp"), 2006 + partial);
  for (const auto& i : d) EXPECT_EQ(value(r(), i, "flops_x87"), 0);
}

TEST_P(Kernels, AxpyFlopsLandInTheClassOfTheCode) {
  auto d = of_region(r(), DAXPY);
  // n = 1000 is a multiple of every vector length: no scalar remainder.
  const char* cls = GetParam() == "emul_kernels_O3" ? "flops_dp_128"
                    : GetParam() == "emul_kernels_O3_avx2_fma" ? "flops_dp_256"
                                                                : "flops_dp_scalar";
  EXPECT_EQ(value(r(), d[0], cls), 2000);
}

TEST_P(Kernels, AxpyL1BytesAreTheArraysPlusAFixedOverhead) {
  auto d = of_region(r(), DAXPY), s = of_region(r(), SAXPY);
  for (int k = 0; k < 2; ++k) {
    double n = k == 0 ? 1000 : 1003;
    if (o0()) {
      // -O0 keeps i, x, y, a and n on the stack: 80 (76 for float a) more bytes read and
      // 8 more written per element, 32 read and 48 written per call (docs/emulation.md).
      EXPECT_EQ(value(r(), d[k], "bytes_read_L1"), 96 * n + 32);
      EXPECT_EQ(value(r(), d[k], "bytes_written_L1"), 16 * n + 48);
      EXPECT_EQ(value(r(), s[k], "bytes_read_L1"), 84 * n + 32);
      EXPECT_EQ(value(r(), s[k], "bytes_written_L1"), 12 * n + 44);
    } else {
      // x and y read, y written; the ret reads the 8-byte return address.
      EXPECT_EQ(value(r(), d[k], "bytes_read_L1"), 16 * n + 8);
      EXPECT_EQ(value(r(), d[k], "bytes_written_L1"), 8 * n);
      EXPECT_EQ(value(r(), s[k], "bytes_read_L1"), 8 * n + 8);
      EXPECT_EQ(value(r(), s[k], "bytes_written_L1"), 4 * n);
    }
  }
}

TEST_P(Kernels, GemvIsTwoNSquared) {
  auto d = of_region(r(), DGEMV), s = of_region(r(), SGEMV);
  ASSERT_EQ(d.size(), 1u);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(flops_of(r(), d[0], "dp"), 2.0 * 64 * 64);
  EXPECT_EQ(flops_of(r(), d[0], "sp"), 0);
  EXPECT_EQ(flops_of(r(), s[0], "sp"), 2.0 * 64 * 64);
  EXPECT_EQ(flops_of(r(), s[0], "dp"), 0);
}

TEST_P(Kernels, TripleLoopGemmIsTwoNCubed) {
  auto d = of_region(r(), DGEMM), s = of_region(r(), SGEMM);
  ASSERT_EQ(d.size(), 1u);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(flops_of(r(), d[0], "dp"), 2.0 * 24 * 24 * 24);
  EXPECT_EQ(flops_of(r(), s[0], "sp"), 2.0 * 24 * 24 * 24);
}

TEST_P(Kernels, SqrtAndDivideCountOneFlopPerElement) {
  auto i = of_region(r(), SQRT_DIV);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(flops_of(r(), i[0], "dp"), 3000);  // sqrt + add + divide
}

TEST_P(Kernels, X87FlopsAreCountedApart) {
  auto i = of_region(r(), X87_DOT);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(value(r(), i[0], "flops_x87"), 2000);  // fmul + fadd per element
  EXPECT_EQ(flops(r(), i[0]), 0);
}

INSTANTIATE_TEST_SUITE_P(Levels, Kernels,
                         ::testing::Values("emul_kernels_O0", "emul_kernels_O2", "emul_kernels_O3",
                                           "emul_kernels_O3_avx2_fma"),
                         [](const auto& info) { return info.param.substr(strlen("emul_kernels_")); });

}  // namespace
}  // namespace roofprof::emul::test
