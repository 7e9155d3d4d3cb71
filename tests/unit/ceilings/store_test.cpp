#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ceilings/machine.hpp"
#include "ceilings/store.hpp"
#include "common/error.hpp"

namespace roofprof::ceilings {
namespace {

namespace fs = std::filesystem;

// A measurement small enough for a unit test: scalar compute on one thread.
CacheOptions tiny(const fs::path& dir, std::vector<std::string>* warnings) {
  CacheOptions o;
  o.dir = dir;
  o.measure.bandwidth = false;
  o.measure.latency = false;
  o.measure.isas = {Isa::scalar};
  o.measure.thread_counts = {1};
  o.measure.sample_ms = 1;
  o.measure.samples = 3;
  o.warn = [warnings](const std::string& w) { warnings->push_back(w); };
  return o;
}

class CeilingsStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("roofprof-ceilings-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CeilingsStore, MeasuresOnceThenReuses) {
  std::vector<std::string> warnings;
  auto first = load_or_measure(tiny(dir_, &warnings));
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(fs::exists(first.path));
  EXPECT_FALSE(first.ceilings.compute.empty());
  auto second = load_or_measure(tiny(dir_, &warnings));
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.ceilings.method.measured_at, first.ceilings.method.measured_at);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(CeilingsStore, CorruptedCacheIsRegeneratedWithAWarning) {
  std::vector<std::string> warnings;
  const fs::path file = cache_file(dir_, current_machine());
  fs::create_directories(dir_);
  std::ofstream(file) << "{\"schema\": \"roofprof.ceilings/1\", \"machine\": tru";
  auto got = load_or_measure(tiny(dir_, &warnings));
  EXPECT_FALSE(got.from_cache);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("unreadable"), std::string::npos) << warnings[0];
  EXPECT_NO_THROW(load(file));  // rewritten with the new measurement
  EXPECT_TRUE(load_or_measure(tiny(dir_, &warnings)).from_cache);
  EXPECT_EQ(warnings.size(), 1u);
}

TEST_F(CeilingsStore, StaleCacheIsRegeneratedWithAWarning) {
  std::vector<std::string> warnings;
  auto first = load_or_measure(tiny(dir_, &warnings));
  Ceilings old = first.ceilings;
  old.machine.kernel = "0.0.1-old";
  save(old, first.path);
  auto got = load_or_measure(tiny(dir_, &warnings));
  EXPECT_FALSE(got.from_cache);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("stale"), std::string::npos) << warnings[0];
  EXPECT_EQ(load(first.path).machine, current_machine());
}

TEST_F(CeilingsStore, CacheWithoutARequestedPartIsMeasuredAgain) {
  std::vector<std::string> warnings;
  auto o = tiny(dir_, &warnings);
  load_or_measure(o);
  o.measure.bandwidth = true;
  o.measure.levels = {Level::l1};
  auto got = load_or_measure(o);
  EXPECT_FALSE(got.from_cache);
  EXPECT_FALSE(got.ceilings.bandwidth.empty());
  EXPECT_TRUE(load_or_measure(o).from_cache);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(got.ceilings.measured_caches.size(), got.ceilings.caches.size());
  // A cache from before the measured hierarchy (no "hierarchy" part): measured again.
  Ceilings old = got.ceilings;
  old.method.parts = {"compute", "bandwidth"};
  old.measured_caches.clear();
  save(old, got.path);
  EXPECT_FALSE(load_or_measure(o).from_cache);
  EXPECT_TRUE(load_or_measure(o).from_cache);
}

TEST(CeilingsLoad, UnreadableFileIsAUserError) {
  EXPECT_THROW(load("/nonexistent/ceilings.json"), UserError);
}

}  // namespace
}  // namespace roofprof::ceilings
