// Cache geometry: the explicit syntax and sysfs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "emul/cache_geometry.hpp"
#include "tests/unit/host_caches_variable.hpp"

namespace roofprof::emul {
namespace {

TEST(EmulGeometry, ParsesLevelsInOrder) {
  auto g = parse_cache_geometry("L1=48K:12:64,L2=1M:16:64,L3=32M:16:64");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0], (CacheInfo{1, 48 << 10, 12, 64, 0, {}}));
  EXPECT_EQ(g[1], (CacheInfo{2, 1 << 20, 16, 64, 0, {}}));
  EXPECT_EQ(g[2], (CacheInfo{3, 32 << 20, 16, 64, 0, {}}));
  EXPECT_EQ(to_string(g), "L1=48K:12:64,L2=1M:16:64,L3=32M:16:64");
}

TEST(EmulGeometry, RejectsWhatTheSimulatorCannotModel) {
  EXPECT_THROW(parse_cache_geometry(""), UserError);
  EXPECT_THROW(parse_cache_geometry("L1=48K:12"), UserError);
  EXPECT_THROW(parse_cache_geometry("L2=1M:16:64"), UserError);               // must start at L1
  EXPECT_THROW(parse_cache_geometry("L1=32K:8:48"), UserError);               // line not a power of two
  EXPECT_THROW(parse_cache_geometry("L1=32K:8:64,L2=1M:16:128"), UserError);  // line sizes differ
  EXPECT_THROW(parse_cache_geometry("L1=1000:8:64"), UserError);              // not ways * line * sets
  EXPECT_THROW(parse_cache_geometry("L1=32Q:8:64"), UserError);
}

// The simulated hierarchy: the levels between L1 and the last inclusive; the last as asked, else as
// CPUID describes the host's level (for the host's geometry only), else inclusive.
TEST(EmulGeometry, LastLevelIsInclusiveAsAskedElseAsTheHostsElseInclusive) {
  const auto levels = parse_cache_geometry("L1=48K:12:64,L2=1M:16:64,L3=32M:16:64");
  std::vector<CacheInfo> host_says = levels;
  host_says[1].inclusive = true;
  host_says[2].inclusive = false;  // AMD since Zen: the L3 holds the L2's victims
  auto inclusion = [](const std::vector<CacheInfo>& h) {
    std::vector<std::optional<bool>> out;
    for (const auto& l : h) out.push_back(l.inclusive);
    return out;
  };
  using V = std::vector<std::optional<bool>>;
  EXPECT_EQ(inclusion(simulated_hierarchy(levels, std::nullopt, true, host_says)), (V{std::nullopt, true, false}));
  EXPECT_EQ(inclusion(simulated_hierarchy(levels, true, true, host_says)), (V{std::nullopt, true, true}));
  EXPECT_EQ(inclusion(simulated_hierarchy(levels, std::nullopt, false, host_says)), (V{std::nullopt, true, true}));
  EXPECT_EQ(inclusion(simulated_hierarchy(levels, false, false, {})), (V{std::nullopt, true, false}));
  EXPECT_EQ(inclusion(simulated_hierarchy(levels, std::nullopt, true, {})), (V{std::nullopt, true, true}));
  host_says[2].inclusive = std::nullopt;  // sysfs and AMD's legacy leaves do not say
  EXPECT_EQ(inclusion(simulated_hierarchy(levels, std::nullopt, true, host_says)), (V{std::nullopt, true, true}));
  const auto one = parse_cache_geometry("L1=48K:12:64");
  EXPECT_THROW(simulated_hierarchy(one, false, false, {}), UserError);
  EXPECT_EQ(inclusion(simulated_hierarchy(one, std::nullopt, false, {})), (V{std::nullopt}));
}

// A reported last level above 96 MiB (the L3 of one AMD CCD with 3D V-Cache) is
// flagged: a VM's CPUID reports its host's whole socket (508 MB on the development VM).
TEST(EmulGeometry, ReportedLastLevelAbove96MiBIsImplausible) {
  EXPECT_EQ(implausible_last_level({}), std::nullopt);
  EXPECT_EQ(implausible_last_level(parse_cache_geometry("L1=48K/12,L2=1M/8,L3=96M/16")), std::nullopt);
  const auto w = implausible_last_level(parse_cache_geometry("L1=48K/12,L2=1M/8,L3=508M/16"));
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("reports a 508M L3, more than the 96M"), std::string::npos) << *w;
  EXPECT_NE(w->find("--cache"), std::string::npos) << *w;
  EXPECT_EQ(w->find('\n'), std::string::npos) << *w;
  EXPECT_TRUE(implausible_last_level(parse_cache_geometry("L1=48K/12,L2=300M/16")).has_value());
}

void put(const std::filesystem::path& dir, const char* name, const char* text) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text << "\n";
}

TEST(EmulGeometry, ReadsDataAndUnifiedCachesFromSysfs) {
  auto root = std::filesystem::path(::testing::TempDir()) / ("emul_sysfs_" + std::to_string(getpid()));
  auto level = [&](const char* idx, const char* lvl, const char* type, const char* size, const char* ways) {
    put(root / idx, "level", lvl);
    put(root / idx, "type", type);
    put(root / idx, "size", size);
    put(root / idx, "ways_of_associativity", ways);
    put(root / idx, "coherency_line_size", "64");
  };
  level("index0", "1", "Data", "48K", "12");
  level("index1", "1", "Instruction", "32K", "8");
  level("index2", "2", "Unified", "1024K", "16");
  level("index3", "3", "Unified", "32768K", "16");
  auto g = host_cache_geometry(root.string());
  std::filesystem::remove_all(root);
  EXPECT_EQ(to_string(g), "L1=48K:12:64,L2=1M:16:64,L3=32M:16:64");
}

TEST(EmulGeometry, NoSysfsIsAUserError) { EXPECT_THROW(host_cache_geometry("/nonexistent/cache"), UserError); }

// ROOFPROF_HOST_CACHES (test builds): the host's geometry is that host's, 508 MB L3 and all (a
// number of sets that is not a power of two), and so is what CPUID would say of the last level's
// inclusion. A hierarchy the simulator cannot model is bad input naming the variable. A sysfs
// root of a test's own is read whatever the variable says.
TEST(EmulGeometry, AnotherHostsCachesThroughTheSeam) {
  if (!host_caches_honoured()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  {
    test_support::HostCachesVariable v("L1=48K:12:64,L2=1M:16:64,L3=508M:16:64,non-inclusive");
    const auto g = host_cache_geometry();
    EXPECT_EQ(to_string(g), "L1=48K:12:64,L2=1M:16:64,L3=508M:16:64");
    const auto sim = simulated_hierarchy(g, std::nullopt, true, host_caches().cpuid);
    EXPECT_EQ(sim.back().inclusive, false);
    EXPECT_THROW(host_cache_geometry("/nonexistent/cache"), UserError);
  }
  {
    test_support::HostCachesVariable v("L1=32K:8:64,L2=256K:4:64,L3=6M:12:64");
    EXPECT_EQ(to_string(host_cache_geometry()), "L1=32K:8:64,L2=256K:4:64,L3=6M:12:64");
    const auto sim = simulated_hierarchy(host_cache_geometry(), std::nullopt, true, host_caches().cpuid);
    EXPECT_EQ(sim.back().inclusive, true) << "not said: inclusive";
  }
  {
    test_support::HostCachesVariable v("L1=32K:8:48");
    try {
      host_cache_geometry();
      ADD_FAILURE() << "a line size that is not a power of two accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("ROOFPROF_HOST_CACHES: cache geometry: L1 line size 48", 0), 0u)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace roofprof::emul
