// Cache geometry from CPUID, the fallback for kernels without /sys/.../cpu0/cache.
#include "common/cpuid_caches.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

namespace roofprof {
namespace {

std::string sysfs(const std::string& index, const std::string& file) {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/" + index + "/" + file);
  std::string s;
  std::getline(in, s);
  return s;
}

TEST(CpuidCaches, DescribeAPlausibleHierarchy) {
  auto caches = cpuid_caches();
  ASSERT_GE(caches.size(), 2u) << "every x86-64 CPU this runs on describes L1 and L2";
  EXPECT_EQ(caches[0].level, 1);
  EXPECT_GE(caches[0].size, 16u << 10);
  EXPECT_LE(caches[0].size, 256u << 10);
  EXPECT_EQ(caches[0].line, 64u);
  for (size_t i = 1; i < caches.size(); ++i) {
    EXPECT_EQ(caches[i].level, caches[i - 1].level + 1);
    EXPECT_GT(caches[i].size, caches[i - 1].size);
  }
}

// Where the kernel describes the caches too, both agree on each level's size and line.
TEST(CpuidCaches, AgreeWithSysfsWhereBothExist) {
  if (!std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache/index0"))
    GTEST_SKIP() << "this kernel has no cacheinfo: CPUID is the only source here";
  for (const CpuidCache& c : cpuid_caches()) {
    for (int i = 0; i < 8; ++i) {
      const std::string idx = "index" + std::to_string(i);
      if (sysfs(idx, "level") != std::to_string(c.level) || sysfs(idx, "type") == "Instruction") continue;
      EXPECT_EQ(std::to_string(c.size >> 10) + "K", sysfs(idx, "size")) << "L" << c.level;
      EXPECT_EQ(std::to_string(c.line), sysfs(idx, "coherency_line_size")) << "L" << c.level;
    }
  }
}

TEST(CpuidCaches, AmdLegacyAssociativityCodes) {
  // AMD64 APM vol. 3, CPUID Fn8000_0006: the codes that are not the number of ways itself.
  EXPECT_EQ(amd_legacy_ways(0x5), 6u);
  EXPECT_EQ(amd_legacy_ways(0x6), 8u);
  EXPECT_EQ(amd_legacy_ways(0x8), 16u);
  EXPECT_EQ(amd_legacy_ways(0xa), 32u);
  EXPECT_EQ(amd_legacy_ways(0xf), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(amd_legacy_ways(0x9), 0u) << "see Fn8000_001D: unknown here, never guessed";
  EXPECT_EQ(amd_legacy_ways(0x0), 0u);
}

}  // namespace
}  // namespace roofprof
