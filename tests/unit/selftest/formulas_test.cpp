// The kernels' declared work and compulsory traffic (selftest/kernel_table.h): the seed
// paper's Table I, plus write-allocate for stores to lines a kernel never reads.
#include <gtest/gtest.h>

#include "kernel_lookup.hpp"

#include <set>
#include <string>

#include "selftest/kernel_table.h"

namespace {

TEST(SelftestFormulas, Blas1) {
  const sx_kernel& d = kernel("daxpy");
  EXPECT_EQ(d.work(1000), 2000);
  EXPECT_EQ(d.read(1000), 16000);  // x and y
  EXPECT_EQ(d.write(1000), 8000);  // y
  EXPECT_EQ(d.footprint(1000), 16000);
  const sx_kernel& s = kernel("saxpy");
  EXPECT_EQ(s.work(1000), 2000);
  EXPECT_EQ(s.read(1000), 8000);
  EXPECT_EQ(s.write(1000), 4000);
  const sx_kernel& ds = kernel("daxpy_scalar");
  EXPECT_EQ(ds.work(64), d.work(64));
  EXPECT_EQ(ds.read(64), d.read(64));
  const sx_kernel& t = kernel("triad");
  EXPECT_EQ(t.work(1000), 2000);
  EXPECT_EQ(t.read(1000), 24000);  // b, c, and a fetched before it is written (write-allocate)
  EXPECT_EQ(t.write(1000), 8000);
}

TEST(SelftestFormulas, Blas2And3) {
  const sx_kernel& v = kernel("dgemv");
  EXPECT_EQ(v.work(100), 20000);
  EXPECT_EQ(v.read(100), 8 * 100 * 100 + 16 * 100);  // A, x, y
  EXPECT_EQ(v.write(100), 800);
  for (const char* name : {"dgemm_naive", "dgemm_blocked"}) {
    const sx_kernel& m = kernel(name);
    EXPECT_EQ(m.work(100), 2e6) << name;
    EXPECT_EQ(m.read(100), 24 * 100 * 100) << name;  // A, B, C
    EXPECT_EQ(m.write(100), 8 * 100 * 100) << name;  // C
  }
}

TEST(SelftestFormulas, FmaIsRegisterOnly) {
  const sx_kernel& f = kernel("fma");
  EXPECT_EQ(f.work(10), 640);  // 8 chains x 4 lanes x 2 flops x 10 iterations
  EXPECT_EQ(f.read, nullptr);  // its traffic is not checked
  EXPECT_EQ(f.write, nullptr);
}

TEST(SelftestFormulas, EveryKernelHasADistinctNameAndSymbol) {
  std::set<std::string> names, symbols;
  for (int i = 0; i < SX_N_KERNELS; ++i) {
    EXPECT_TRUE(names.insert(sx_kernels[i].name).second);
    EXPECT_TRUE(symbols.insert(sx_kernels[i].symbol).second);
    EXPECT_EQ(std::string(sx_kernels[i].symbol), std::string("sx_") + sx_kernels[i].name);
    EXPECT_GT(sx_kernels[i].granule, 0);
  }
}

}  // namespace
