// Native counting's patches kept between runs (native/patch_cache.hpp): an entry reads back as the
// patch it was made from, at another load address (and moves from there to where this run put
// the trampolines: Emit.RebasedIsWhatEmitGives...); a different file, probe set or a damaged
// entry reads back as nothing.
#include "native/patch_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/native/harness.hpp"

namespace roofprof::native {
namespace {

namespace fs = std::filesystem;

// A real module's patch (the hand-written cases), emitted as if the module were at `bias`.
ModulePatch sample(uint64_t bias) {
  static test::LoadedModule m(test::fixture_path("libnative_plan_cases.so"));
  const uint64_t loaded = m.code().front().address;  // the fixture's code, wherever dlopen put it
  std::vector<CodeRange> code;
  std::vector<Function> functions;
  for (CodeRange r : m.code()) code.push_back({r.address - loaded + bias, r.bytes});
  for (Function f : m.functions()) functions.push_back({f.start - loaded + bias, f.size, f.name});
  std::vector<CodeRange> data;
  for (CodeRange r : m.data()) data.push_back({r.address - loaded + bias, r.bytes});
  const ModulePlan plan = plan_module(code, functions, {}, data);
  ModulePatch p = summary_of(plan);
  p.emitted = emit(plan, code, bias - (64u << 20));
  return p;
}

class PatchCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("patch_cache_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    module_ = (dir_ / "module.so").string();
    fs::create_directories(dir_);
    std::ofstream(module_) << "not really a module";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string module_;
};

TEST_F(PatchCache, AnEntryReadsBackAtAnotherLoadAddress) {
  const uint64_t a = 0x7000000000, b = 0x5000000000;
  const uint64_t busy[] = {a + 0x1000, a + 0x3000};
  auto key = patch_key(dir_, module_, busy, a);
  ASSERT_TRUE(key);
  const ModulePatch made = sample(a);
  ASSERT_GT(made.sites, 0u);
  ASSERT_FALSE(made.uncounted.empty()) << "the cases include sites that cannot be patched";
  store_patch(*key, made, a);
  // The next run maps the module elsewhere: same busy offsets, another bias.
  const uint64_t moved[] = {b + 0x1000, b + 0x3000};
  auto again = patch_key(dir_, module_, moved, b);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->file, key->file);
  auto back = load_patch(*again, b);
  ASSERT_TRUE(back);
  // Everything as made, moved with the module: the trampolines as far from it as they were.
  const ModulePatch want = sample(b);
  EXPECT_EQ(back->sites, want.sites);
  EXPECT_EQ(back->fp_insns, want.fp_insns);
  EXPECT_EQ(back->uncounted_fp_insns, want.uncounted_fp_insns);
  ASSERT_EQ(back->uncounted.size(), want.uncounted.size());
  for (size_t k = 0; k < want.uncounted.size(); ++k) {
    EXPECT_EQ(back->uncounted[k].start, want.uncounted[k].start);
    EXPECT_EQ(back->uncounted[k].function, want.uncounted[k].function);
    EXPECT_EQ(back->uncounted[k].why, want.uncounted[k].why);
    EXPECT_EQ(back->uncounted[k].fp_insns, want.uncounted[k].fp_insns);
  }
  EXPECT_EQ(back->emitted.base, want.emitted.base);
  EXPECT_EQ(back->emitted.trampolines, want.emitted.trampolines);
  EXPECT_EQ(back->emitted.relocs, want.emitted.relocs);
  ASSERT_EQ(back->emitted.jumps.size(), want.emitted.jumps.size());
  for (size_t k = 0; k < want.emitted.jumps.size(); ++k) {
    EXPECT_EQ(back->emitted.jumps[k].at, want.emitted.jumps[k].at);
    EXPECT_EQ(back->emitted.jumps[k].bytes, want.emitted.jumps[k].bytes);
  }
}

TEST_F(PatchCache, OtherProbesAChangedFileOrADamagedEntryReadBackAsNothing) {
  const uint64_t busy[] = {0x1000};
  auto key = patch_key(dir_, module_, busy, 0x100000000);
  ASSERT_TRUE(key);
  store_patch(*key, sample(0x100000000), 0x100000000);
  ASSERT_TRUE(load_patch(*key, 0x100000000));
  const uint64_t other[] = {0x1000, 0x1800};
  auto k2 = patch_key(dir_, module_, other, 0x100000000);
  ASSERT_TRUE(k2);
  EXPECT_NE(k2->text, key->text);
  EXPECT_FALSE(load_patch(*k2, 0x100000000) && k2->file == key->file);  // another key: not this entry
  // A damaged entry: cut short.
  const auto size = fs::file_size(key->file);
  fs::resize_file(key->file, size - 3);
  EXPECT_FALSE(load_patch(*key, 0x100000000));
  // The file changed (size, time): another key.
  std::ofstream(module_, std::ios::app) << "more";
  auto k3 = patch_key(dir_, module_, busy, 0x100000000);
  ASSERT_TRUE(k3);
  EXPECT_NE(k3->text, key->text);
  EXPECT_FALSE(patch_key(fs::path(), module_, busy, 0)) << "no cache directory, no key";
}

// An entry is code written into programs: one that others could have written is not used.
TEST_F(PatchCache, AnEntryOthersCouldWriteIsNotUsed) {
  const uint64_t busy[] = {0x1000};
  auto key = patch_key(dir_, module_, busy, 0x100000000);
  ASSERT_TRUE(key);
  store_patch(*key, sample(0x100000000), 0x100000000);
  EXPECT_EQ(fs::status(key->file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_TRUE(load_patch(*key, 0x100000000));
  fs::permissions(key->file, fs::perms::group_write | fs::perms::others_write, fs::perm_options::add);
  EXPECT_FALSE(load_patch(*key, 0x100000000)) << "writable by others";
  fs::permissions(key->file, fs::perms::group_write | fs::perms::others_write, fs::perm_options::remove);
  ASSERT_TRUE(load_patch(*key, 0x100000000));
  fs::permissions(key->file.parent_path(), fs::perms::others_write, fs::perm_options::add);
  EXPECT_FALSE(load_patch(*key, 0x100000000)) << "in a directory others write";
  // Storing again makes the directory this user's alone.
  store_patch(*key, sample(0x100000000), 0x100000000);
  EXPECT_TRUE(load_patch(*key, 0x100000000));
}

}  // namespace
}  // namespace roofprof::native
