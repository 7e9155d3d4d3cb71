// Separate debug files: the debug directories, .gnu_debuglink's CRC32, the owning package and
// what a stripped file's message says (symbolizer/debug_file.hpp).
#include "symbolizer/debug_file.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "symbolizer/elf_file.hpp"
#include "symbolizer/elf_handle.hpp"
#include "fixture_paths.hpp"

namespace roofprof::symbolizer {
namespace {

class DebugDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("ROOFPROF_DEBUG_DIRS");
    saved_ = old ? std::optional<std::string>(old) : std::nullopt;
  }
  void TearDown() override {
    if (saved_) ::setenv("ROOFPROF_DEBUG_DIRS", saved_->c_str(), 1);
    else ::unsetenv("ROOFPROF_DEBUG_DIRS");
  }
  std::optional<std::string> saved_;
};

TEST_F(DebugDirs, ColonSeparatedOrTheSystemDefault) {
  ::unsetenv("ROOFPROF_DEBUG_DIRS");
  EXPECT_EQ(debug_roots(), std::vector<std::string>{"/usr/lib/debug"});
  ::setenv("ROOFPROF_DEBUG_DIRS", "", 1);
  EXPECT_EQ(debug_roots(), std::vector<std::string>{"/usr/lib/debug"});
  ::setenv("ROOFPROF_DEBUG_DIRS", "/a/b::/c", 1);
  EXPECT_EQ(debug_roots(), (std::vector<std::string>{"/a/b", "/c"}));
}

TEST(DebugFile, SystemLibraryDirs) {
  EXPECT_TRUE(in_system_library_dir("/usr/lib/x86_64-linux-gnu/libfftw3.so.3"));
  EXPECT_TRUE(in_system_library_dir("/lib64/ld-linux-x86-64.so.2"));
  EXPECT_FALSE(in_system_library_dir("/usr/bin/pw.x"));
  EXPECT_FALSE(in_system_library_dir("/usr/libexec/prog"));
  EXPECT_FALSE(in_system_library_dir("/opt/lib/libx.so"));
}

TEST(DebugFile, Crc32IsZlibs) {
  std::string path = ::testing::TempDir() + "roofprof_crc32_check";
  std::ofstream(path, std::ios::binary) << "123456789";
  EXPECT_EQ(file_crc32(path), 0xCBF43926u);  // the CRC-32 check value
  std::ofstream(path, std::ios::binary | std::ios::trunc).flush();
  EXPECT_EQ(file_crc32(path), 0u);
  std::filesystem::remove(path);
  EXPECT_EQ(file_crc32(path), std::nullopt);
}

// sym_lines_split's link to sym_lines_split.debug beside it holds the debug file's CRC32: a
// copy one byte longer (same build-id) is refused there.
TEST(DebugFile, DebuglinkCandidateWithAnotherCrcIsRefused) {
  std::string dir = ::testing::TempDir() + "roofprof_debuglink_crc";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(test::fixture("sym_lines_split"), dir + "/sym_lines_split");
  std::filesystem::copy_file(test::fixture("sym_lines_split.debug"), dir + "/sym_lines_split.debug");
  ElfHandle split(dir + "/sym_lines_split");
  EXPECT_EQ(find_debug_file(split.elf(), dir + "/sym_lines_split", dir + "/none"), dir + "/sym_lines_split.debug");
  std::ofstream(dir + "/sym_lines_split.debug", std::ios::app | std::ios::binary) << '\0';
  EXPECT_EQ(find_debug_file(split.elf(), dir + "/sym_lines_split", dir + "/none"), std::nullopt);
  // Found in the .debug/ folder and under a debug directory followed by the file's folder.
  std::filesystem::create_directories(dir + "/.debug");
  std::filesystem::copy_file(test::fixture("sym_lines_split.debug"), dir + "/.debug/sym_lines_split.debug");
  EXPECT_EQ(find_debug_file(split.elf(), dir + "/sym_lines_split", dir + "/none"),
            dir + "/.debug/sym_lines_split.debug");
  std::filesystem::remove_all(dir + "/.debug");
  std::filesystem::create_directories(dir + "/root" + dir);
  std::filesystem::copy_file(test::fixture("sym_lines_split.debug"), dir + "/root" + dir + "/sym_lines_split.debug");
  EXPECT_EQ(find_debug_file(split.elf(), dir + "/sym_lines_split", dir + "/root"),
            dir + "/root" + dir + "/sym_lines_split.debug");
  std::filesystem::remove_all(dir);
}

TEST(DebugFile, SearchSaysWhatItLookedFor) {
  ElfHandle split(test::fixture("sym_lines_split"));
  DebugSearch s = search_debug_file(split.elf(), "/nowhere/sym_lines_split", {"/r1", "/r2"}, false);
  const std::string id = build_id(split.elf());
  EXPECT_EQ(s.build_id, id);
  EXPECT_EQ(s.build_id_path, "/r1/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
  EXPECT_EQ(s.debuglink, "sym_lines_split.debug");
  EXPECT_EQ(s.found, std::nullopt);
}

TEST(DebugFile, StrippedFilesHaveANoteOthersNone) {
  EXPECT_EQ(ElfFile::open(test::fixture("sym_lines"))->stripped_note(), std::nullopt);
  EXPECT_EQ(ElfFile::open(test::fixture("sym_lines_split"))->stripped_note(), std::nullopt);  // its debug file's
  auto plain = ElfFile::open(test::fixture("sym_plain_rdynamic_stripped"));
  ASSERT_TRUE(plain->stripped_note());
  EXPECT_EQ(plain->stripped_note()->rfind("sym_plain_rdynamic_stripped has no symbol table (stripped: only its ", 0), 0u)
      << *plain->stripped_note();
}

TEST(DebugFile, StrippedMessageNamesDebugFileAndPackage) {
  DebugSearch s;
  s.build_id = "abcdef";
  s.build_id_path = "/usr/lib/debug/.build-id/ab/cdef.debug";
  s.debuglink = "pw.x.debug";
  s.debuginfod_configured = true;
  s.debuginfod = "DEBUGINFOD_URLS is set but debuginfod-find is not installed (Debian: apt install debuginfod)";
  EXPECT_EQ(stripped_message("/usr/bin/pw.x", 2, s, "quantum-espresso"),
            "pw.x has no symbol table (stripped: only its 2 exported functions have names) and its debug file was "
            "not found (looked for /usr/lib/debug/.build-id/ab/cdef.debug and pw.x.debug (its .gnu_debuglink)); "
            "install quantum-espresso-dbgsym (Debian: the debian-debug archive), or point ROOFPROF_DEBUG_DIRS at a "
            "folder holding its debug file; DEBUGINFOD_URLS is set but debuginfod-find is not installed (Debian: apt "
            "install debuginfod)");
  EXPECT_EQ(stripped_message("/opt/x/prog", 0, DebugSearch{}, ""),
            "prog has no symbol table (stripped: none of its functions has a name) and names no debug file (no "
            "build-id, no .gnu_debuglink); install the -dbgsym package of the package that installed it (Debian: the "
            "debian-debug archive), or point ROOFPROF_DEBUG_DIRS at a folder holding its debug file, or set "
            "DEBUGINFOD_URLS to ask a debuginfod server");
}

TEST(DebugFile, OwningPackageFromDpkg) {
  if (!std::filesystem::exists("/var/lib/dpkg/info/dpkg.list")) GTEST_SKIP() << "no dpkg database";
  EXPECT_EQ(owning_package("/usr/bin/dpkg"), "dpkg");
  EXPECT_EQ(owning_package(test::fixture("sym_lines")), "");
}

}  // namespace
}  // namespace roofprof::symbolizer
