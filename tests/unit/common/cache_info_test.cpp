// The host cache model: from sysfs, and from CPUID, the fallback for kernels without
// /sys/.../cpu0/cache.
#include "common/cache_info.hpp"

#include <cpuid.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "tests/unit/host_caches_variable.hpp"

namespace roofprof {
namespace {

using test_support::HostCachesVariable;

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

// The deterministic cache leaves (Intel's 4, AMD's 0x8000001D) say whether each level includes the
// ones above it (EDX bit 1). On AMD since Zen the L2 includes L1 and the L3 holds the L2's victims
// (AMD's Software Optimization Guides for family 17h-1Ah, "Cache"); this VM's AMD EPYC says so.
TEST(CpuidCaches, SayWhetherEachLevelIncludesTheOnesAbove) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  const bool amd_topology = __get_cpuid(0x80000001, &a, &b, &c, &d) && ((c >> 22) & 1) &&
                            __get_cpuid(0, &a, &b, &c, &d) && b == 0x68747541;  // "Auth"enticAMD
  const bool intel = __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547;          // "Genu"ineIntel
  if (!amd_topology && !intel) GTEST_SKIP() << "no deterministic cache leaf on this CPU";
  auto caches = cpuid_caches();
  for (const CacheInfo& l : caches) EXPECT_TRUE(l.inclusive.has_value()) << "L" << l.level;
  __get_cpuid(1, &a, &b, &c, &d);
  const unsigned family = ((a >> 8) & 0xf) + (((a >> 8) & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
  if (amd_topology && family >= 0x17 && caches.size() >= 3) {  // Zen
    EXPECT_EQ(caches[1].inclusive, true);
    EXPECT_EQ(caches[2].inclusive, false);
  }
}

// Where the kernel describes the caches too, both agree on each level's size and line.
TEST(CpuidCaches, AgreeWithSysfsWhereBothExist) {
  if (!std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache/index0"))
    GTEST_SKIP() << "this kernel has no cacheinfo: CPUID is the only source here";
  for (const CacheInfo& c : cpuid_caches()) {
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
  EXPECT_EQ(amd_legacy_ways(0xf), kFullyAssociative);
  EXPECT_EQ(amd_legacy_ways(0x9), 0u) << "see Fn8000_001D: unknown here, never guessed";
  EXPECT_EQ(amd_legacy_ways(0x0), 0u);
}

void put(const std::filesystem::path& dir, const char* name, const char* text) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text << "\n";
}

// Every field sysfs gives, by level whatever the order of the index directories; instruction
// caches and entries without a level or size are not listed.
TEST(SysfsCaches, ReadDataAndUnifiedCachesByLevel) {
  auto root = std::filesystem::path(::testing::TempDir()) / ("cache_info_" + std::to_string(getpid()));
  auto cache = [&](const char* idx, const char* level, const char* type, const char* size) {
    put(root / idx, "level", level);
    put(root / idx, "type", type);
    put(root / idx, "size", size);
    put(root / idx, "coherency_line_size", "64");
  };
  cache("index0", "3", "Unified", "32768K");
  put(root / "index0", "shared_cpu_list", "0-7,16-23");
  put(root / "index0", "number_of_sets", "32768");  // no ways_of_associativity: from the sets
  cache("index1", "1", "Data", "48K");
  put(root / "index1", "ways_of_associativity", "12");
  put(root / "index1", "shared_cpu_list", "0,16");
  cache("index2", "1", "Instruction", "32K");
  cache("index3", "2", "Unified", "1M");
  cache("index4", "", "Unified", "1M");
  auto caches = sysfs_caches(root.string());
  std::filesystem::remove_all(root);
  ASSERT_EQ(caches.size(), 3u);
  EXPECT_EQ(caches[0], (CacheInfo{1, 48 << 10, 12, 64, 2, {}}));
  EXPECT_EQ(caches[1], (CacheInfo{2, 1 << 20, 0, 64, 0, {}}));
  EXPECT_EQ(caches[2], (CacheInfo{3, 32 << 20, 16, 64, 16, {}}));
}

TEST(SysfsCaches, NoDirectoryListsNone) { EXPECT_TRUE(sysfs_caches("/nonexistent/cache").empty()); }

TEST(CacheSizes, SysfsAndGeometrySuffixes) {
  EXPECT_EQ(parse_cache_size("48K"), 48u << 10);
  EXPECT_EQ(parse_cache_size("1024KiB"), 1u << 20);
  EXPECT_EQ(parse_cache_size("32M"), 32u << 20);
  EXPECT_EQ(parse_cache_size("64"), 64u);
  EXPECT_EQ(parse_cache_size("32Q"), 0u);
  EXPECT_EQ(parse_cache_size(""), 0u);
}

// The syntax of --cache-geometry and ROOFPROF_HOST_CACHES: the levels as written.
TEST(CacheLevels, ParseLevelsInOrder) {
  auto l = parse_cache_levels("L1=48K:12:64,L2=1M:16:64,L3=508M:16:64");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], (CacheInfo{1, 48 << 10, 12, 64, 0, {}}));
  EXPECT_EQ(l[1], (CacheInfo{2, 1 << 20, 16, 64, 0, {}}));
  EXPECT_EQ(l[2], (CacheInfo{3, 508ull << 20, 16, 64, 0, {}}));
  for (const char* bad : {"", "L1=48K:12", "L2=1M:16:64", "L1=48K:12:64,L3=1M:16:64", "L1=48K:12:64,", "L1=0:8:64",
                          "L1=32Q:8:64", "inclusive"})
    EXPECT_THROW(parse_cache_levels(bad), UserError) << bad;
}

// The same levels as SIZE/WAYS[/LINE] (run --cache), the line 64 bytes when left out;
// one separator per level; an optional last item says the last level's inclusion.
TEST(CacheLevels, SlashSyntaxWithTheLineLeftOut) {
  EXPECT_EQ(parse_cache_levels("L1=48K/12,L2=1M/8/128,L3=32M:16:64"),
            parse_cache_levels("L1=48K:12:64,L2=1M:8:128,L3=32M:16:64"));
  for (const char* bad : {"L1=48K/12:64", "L1=48K/", "L1=48K", "L1=48K/12/64/1", "L1=48K:12:64:1", "L1=/12"})
    EXPECT_THROW(parse_cache_levels(bad), UserError) << bad;
  const CacheSpec s = parse_cache_spec("L1=48K/12,L2=1M/8,L3=32M/16,non-inclusive");
  ASSERT_EQ(s.levels.size(), 3u);
  EXPECT_EQ(s.levels[2], (CacheInfo{3, 32 << 20, 16, 64, 0, {}}));
  EXPECT_EQ(s.last_inclusive, false);
  EXPECT_EQ(parse_cache_spec("L1=48K/12,inclusive").last_inclusive, true);
  EXPECT_EQ(parse_cache_spec("L1=48K/12").last_inclusive, std::nullopt);
  EXPECT_THROW(parse_cache_spec("inclusive"), UserError);
}

TEST(HostCachesText, BothSourcesAndTheLastLevelsInclusion) {
  HostCaches h = host_caches_from_text("L1=32K:8:64,L2=1M:8:64,L3=32M:16:64,non-inclusive");
  EXPECT_TRUE(h.replaced);
  ASSERT_EQ(h.sysfs.size(), 3u);
  EXPECT_EQ(h.sysfs, h.cpuid);
  EXPECT_EQ(h.sysfs[2].size, 32u << 20);
  EXPECT_EQ(h.sysfs[0].inclusive, std::nullopt);
  EXPECT_EQ(h.sysfs[1].inclusive, std::nullopt);
  EXPECT_EQ(h.sysfs[2].inclusive, false);
  EXPECT_EQ(host_caches_from_text("L1=32K:8:64,L2=256K:4:64,inclusive").cpuid[1].inclusive, true);
  EXPECT_EQ(host_caches_from_text("L1=32K:8:64,L2=256K:4:64").cpuid[1].inclusive, std::nullopt);
  EXPECT_THROW(host_caches_from_text("non-inclusive"), UserError);
  EXPECT_THROW(host_caches_from_text("L1=32K:8:64,L2=256K:4:64,exclusive"), UserError);
}

// The seam: ROOFPROF_HOST_CACHES replaces both sources of every consumer; unset, the sources are
// the host's own.
TEST(HostCaches, TheVariableReplacesBothSources) {
  if (!host_caches_honoured()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  {
    HostCachesVariable v("L1=48K:12:64,L2=1M:16:64,L3=508M:16:64");
    HostCaches h = host_caches();
    EXPECT_TRUE(h.replaced);
    EXPECT_EQ(h.sysfs, host_caches_from_text("L1=48K:12:64,L2=1M:16:64,L3=508M:16:64").sysfs);
    EXPECT_EQ(h.cpuid, h.sysfs);
  }
  {
    HostCachesVariable v("L1=48K:12");
    try {
      host_caches();
      ADD_FAILURE() << "malformed text accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("ROOFPROF_HOST_CACHES: ", 0), 0u) << e.what();
    }
  }
  for (const char* unset : {static_cast<const char*>(nullptr), ""}) {
    HostCachesVariable v(unset);
    HostCaches h = host_caches();
    EXPECT_FALSE(h.replaced);
    EXPECT_EQ(h.sysfs, sysfs_caches());
    EXPECT_EQ(h.cpuid, cpuid_caches());
  }
}

TEST(HostCaches, WithoutSeamsTheVariableIsIgnored) {
  if (host_caches_honoured()) GTEST_SKIP() << "built with ROOFPROF_TEST_SEAMS";
  HostCachesVariable v("L1=48K:12:64");
  ::testing::internal::CaptureStderr();
  HostCaches h = host_caches();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(h.replaced);
  EXPECT_EQ(h.cpuid, cpuid_caches());
  EXPECT_NE(err.find("ROOFPROF_HOST_CACHES ignored"), std::string::npos) << err;
}

}  // namespace
}  // namespace roofprof
