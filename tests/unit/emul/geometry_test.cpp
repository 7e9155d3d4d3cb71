// Cache geometry: the explicit syntax and sysfs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "emul/cache_geometry.hpp"

namespace roofprof::emul {
namespace {

TEST(EmulGeometry, ParsesLevelsInOrder) {
  auto g = parse_cache_geometry("L1=48K:12:64,L2=1M:16:64,L3=32M:16:64");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0], (CacheInfo{1, 48 << 10, 12, 64}));
  EXPECT_EQ(g[1], (CacheInfo{2, 1 << 20, 16, 64}));
  EXPECT_EQ(g[2], (CacheInfo{3, 32 << 20, 16, 64}));
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

}  // namespace
}  // namespace roofprof::emul
