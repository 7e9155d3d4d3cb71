// Companions are found next to the running executable; the Valgrind engine an install carries
// (lib/roofprof/valgrind.bin) wins over the one the tool was built against.
#include "common/layout.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/temp_dir.hpp"

namespace roofprof {
namespace {

namespace fs = std::filesystem;

TEST(Layout, CompanionDirIsLibRoofprofBesideBin) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(companion_dir(), (self.parent_path().parent_path() / "lib" / "roofprof").string());
}

TEST(Layout, CarriedEngineWins) {
  TempDir dir("roofprof-layout-test", "the test's files");
  const std::string launcher = dir.path() + "/valgrind.bin";
  std::ofstream(launcher) << "#!/bin/sh\n";
  fs::permissions(launcher, fs::perms::owner_all);
  ValgrindEngine e = valgrind_engine_in(dir.path(), "/built/valgrind", "/built/lib");
  EXPECT_EQ(e.launcher, launcher);
  EXPECT_EQ(e.lib_dir, dir.path());
  EXPECT_TRUE(e.carried);
}

TEST(Layout, BuiltEngineWithoutCarriedLauncher) {
  TempDir dir("roofprof-layout-test", "the test's files");
  std::ofstream(dir.path() + "/valgrind.bin") << "not executable\n";
  ValgrindEngine e = valgrind_engine_in(dir.path(), "/built/valgrind", "/built/lib");
  EXPECT_EQ(e.launcher, "/built/valgrind");
  EXPECT_EQ(e.lib_dir, "/built/lib");
  EXPECT_FALSE(e.carried);
  EXPECT_EQ(valgrind_engine_in("", "/built/valgrind", "").launcher, "/built/valgrind");
}

}  // namespace
}  // namespace roofprof
