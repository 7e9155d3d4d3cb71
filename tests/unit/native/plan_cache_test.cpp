// Native counting's plans kept between runs (native/plan_cache.hpp): an entry reads back as the
// plan it was made from, at another load address; a different file, probe set or a damaged entry
// reads back as nothing.
#include "native/plan_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace roofprof::native {
namespace {

namespace fs = std::filesystem;

ModulePlan sample(uint64_t bias) {
  ModulePlan p;
  Site s;
  s.start = bias + 0x1000, s.end = bias + 0x1010;
  s.counts[RP_NATIVE_DP_512] = 16;
  s.fp_insns = 3, s.masked = 1, s.flags_saved = true, s.probed = true;
  s.trampoline_at = 64, s.trampoline_size = 80;
  Segment g;
  g.start = bias + 0x1000;
  g.counts[RP_NATIVE_DP_512] = 16;
  g.flags_saved = true;
  s.segments = {g};
  p.sites = {s};
  p.uncounted = {Uncounted{bias + 0x2000, "f", "shorter than a jump (4 bytes)", 1}};
  p.fp_insns = 4, p.uncounted_fp_insns = 1, p.trampoline_bytes = 192;
  return p;
}

class PlanCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("plan_cache_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    module_ = (dir_ / "module.so").string();
    fs::create_directories(dir_);
    std::ofstream(module_) << "not really a module";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string module_;
};

TEST_F(PlanCache, AnEntryReadsBackAtAnotherLoadAddress) {
  const uint64_t busy[] = {0x7000001000, 0x7000003000};
  auto key = plan_key(dir_, module_, busy, 0x7000000000);
  ASSERT_TRUE(key);
  store_plan(*key, sample(0x7000000000), 0x7000000000);
  // The next run maps the module elsewhere: same busy offsets, another bias.
  const uint64_t moved[] = {0x5000001000, 0x5000003000};
  auto again = plan_key(dir_, module_, moved, 0x5000000000);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->file, key->file);
  auto back = load_plan(*again, 0x5000000000);
  ASSERT_TRUE(back);
  const ModulePlan want = sample(0x5000000000);
  ASSERT_EQ(back->sites.size(), 1u);
  const Site &a = back->sites[0], &b = want.sites[0];
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.fp_insns, b.fp_insns);
  EXPECT_EQ(a.masked, b.masked);
  EXPECT_EQ(a.flags_saved, b.flags_saved);
  EXPECT_EQ(a.probed, b.probed);
  EXPECT_EQ(a.trampoline_at, b.trampoline_at);
  EXPECT_EQ(a.trampoline_size, b.trampoline_size);
  ASSERT_EQ(a.segments.size(), 1u);
  EXPECT_EQ(a.segments[0].start, b.segments[0].start);
  EXPECT_EQ(a.segments[0].counts, b.segments[0].counts);
  ASSERT_EQ(back->uncounted.size(), 1u);
  EXPECT_EQ(back->uncounted[0].start, want.uncounted[0].start);
  EXPECT_EQ(back->uncounted[0].why, want.uncounted[0].why);
  EXPECT_EQ(back->trampoline_bytes, want.trampoline_bytes);
  EXPECT_EQ(back->uncounted_fp_insns, want.uncounted_fp_insns);
}

TEST_F(PlanCache, OtherProbesAChangedFileOrADamagedEntryReadBackAsNothing) {
  const uint64_t busy[] = {0x1000};
  auto key = plan_key(dir_, module_, busy, 0);
  ASSERT_TRUE(key);
  store_plan(*key, sample(0), 0);
  const uint64_t other[] = {0x1000, 0x1800};
  auto k2 = plan_key(dir_, module_, other, 0);
  ASSERT_TRUE(k2);
  EXPECT_NE(k2->text, key->text);
  EXPECT_FALSE(load_plan(*k2, 0) && k2->file == key->file);  // another key: not this entry
  // A damaged entry: cut short.
  const auto size = fs::file_size(key->file);
  fs::resize_file(key->file, size - 3);
  EXPECT_FALSE(load_plan(*key, 0));
  // The file changed (size, time): another key.
  std::ofstream(module_, std::ios::app) << "more";
  auto k3 = plan_key(dir_, module_, busy, 0);
  ASSERT_TRUE(k3);
  EXPECT_NE(k3->text, key->text);
  EXPECT_FALSE(plan_key(fs::path(), module_, busy, 0)) << "no cache directory, no key";
}

}  // namespace
}  // namespace roofprof::native
