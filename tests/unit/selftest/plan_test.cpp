// Sizes and cases of the quick and full sets.
#include <gtest/gtest.h>

#include "kernel_lookup.hpp"

#include "selftest/plan.hpp"

namespace roofprof::selftest {
namespace {

TEST(SelftestPlan, LargestSizeRespectsFootprintWorkAndGranule) {
  const sx_kernel& d = kernel("daxpy");
  EXPECT_EQ(largest_size(d, 16.0 * 4096, 1e12), 4096);
  EXPECT_EQ(largest_size(d, 16.0 * 4100, 1e12), 4096);  // multiples of 32
  EXPECT_EQ(largest_size(d, 1e12, 2.0 * 1024), 1024);   // the work cap
  EXPECT_EQ(largest_size(d, 100, 1e12), 0);             // not even the granule fits
  const sx_kernel& m = kernel("dgemm_naive");
  EXPECT_EQ(largest_size(m, 1e12, 4e6), 96);  // 2 n^3 <= 4e6: n <= 125
}

TEST(SelftestPlan, SmallestSizeAbove) {
  const sx_kernel& d = kernel("daxpy");
  EXPECT_EQ(smallest_size_above(d, 16.0 * 4096), 4096);
  EXPECT_EQ(smallest_size_above(d, 16.0 * 4097), 4128);
}

TEST(SelftestPlan, QuickSetOnA32MiBCache) {
  Plan p = make_plan(false, 32u << 20);
  EXPECT_EQ(p.runs, 1);
  int in_cold = 0, in_warm = 0, beyond = 0;
  for (const Case& c : p.cases) {
    double bytes = c.kernel->footprint(double(c.n));
    if (c.size == SizeClass::InLlc) {
      EXPECT_LE(bytes, 4.0 * (1 << 20)) << c.kernel->name;
      (c.cache_state == "cold" ? in_cold : in_warm)++;
    } else {
      EXPECT_GE(bytes, 1.5 * (32u << 20)) << c.kernel->name;
      beyond++;
    }
  }
  EXPECT_EQ(in_cold, SX_N_KERNELS - 1);  // fma has no cache state: warm only
  EXPECT_EQ(in_warm, SX_N_KERNELS);
  EXPECT_EQ(beyond, 6);  // daxpy, daxpy_scalar, triad; cold and warm
  EXPECT_FALSE(p.notes.empty());  // what is left out is said
}

}  // namespace
}  // namespace roofprof::selftest
