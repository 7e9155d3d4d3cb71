#include "common/cpu_info.hpp"

#include <gtest/gtest.h>

namespace roofprof {
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

// Only the first processor's fields; text before any key and lines without a colon are skipped.
TEST(CpuInfo, ParseCpuinfoTakesTheFirstProcessor) {
  std::string text =
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
      "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz  \nflags\t\t: fpu vme\n\n"
      "processor\t: 1\nvendor_id\t: Other\nmodel name\t: Other CPU\n";
  CpuInfo info = parse_cpuinfo(text);
  EXPECT_EQ(info.vendor, "GenuineIntel");
  EXPECT_EQ(info.model_name, "Intel(R) Xeon(R) CPU @ 2.20GHz");
  EXPECT_EQ(parse_cpuinfo("").model_name, "");
  EXPECT_EQ(parse_cpuinfo("model name:").model_name, "");
  EXPECT_EQ(parse_cpuinfo("cpu family\t:\nmodel\t: x\n").family, -1);  // not a number: unknown, no exception
}

}  // namespace
}  // namespace roofprof
