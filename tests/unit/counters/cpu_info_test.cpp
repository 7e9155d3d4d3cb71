#include "counters/cpu_info.hpp"

#include <gtest/gtest.h>

namespace roofprof::counters {
namespace {

TEST(CpuInfo, ParsesTheFirstProcessorAndCountsAll) {
  const CpuInfo c = parse_cpuinfo(
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
      "model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\nflags\t\t: fpu avx2 avx512f\n\n"
      "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n");
  EXPECT_EQ(c.vendor, "GenuineIntel");
  EXPECT_EQ(c.vendor_short(), "intel");
  EXPECT_EQ(c.family, 6);
  EXPECT_EQ(c.model, 0x55);
  EXPECT_EQ(c.model_name, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
  EXPECT_TRUE(c.has("avx512f"));
  EXPECT_FALSE(c.has("hypervisor"));
  EXPECT_EQ(c.logical_cpus, 2);
}

TEST(CpuInfo, ThisMachineHasAVendor) {
  const CpuInfo c = read_cpuinfo();
  EXPECT_FALSE(c.vendor.empty());
  EXPECT_GT(c.logical_cpus, 0);
}

}  // namespace
}  // namespace roofprof::counters
