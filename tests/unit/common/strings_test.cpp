#include "common/strings.hpp"

#include <gtest/gtest.h>

namespace roofprof {
namespace {

TEST(Strings, EditDistanceCountsTranspositionsOnce) {
  EXPECT_EQ(edit_distance("work", "work"), 0u);
  EXPECT_EQ(edit_distance("wrok", "work"), 1u);
  EXPECT_EQ(edit_distance("dgem_", "dgemm_"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Strings, ClosestPutsTheLikelyTypoFirst) {
  auto c = closest("wrok", {"brk", "work", "ftok", "main", "work"}, 3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], "work");
  auto d = closest("gemm", {"dgemm_", "printf", "sgemm_"}, 2);
  EXPECT_EQ(d, (std::vector<std::string>{"dgemm_", "sgemm_"}));
}

TEST(Strings, PathBasename) {
  EXPECT_EQ(path_basename("/lib/x86_64-linux-gnu/libc.so.6"), "libc.so.6");
  EXPECT_EQ(path_basename("demo"), "demo");
  EXPECT_EQ(path_basename("dir/"), "");
}

// Fault suite (issue 18 item 10): names from files cannot drive the terminal.
TEST(Strings, SanitizeForTerminal) {
  EXPECT_EQ(sanitize_for_terminal("dgemm_"), "dgemm_");
  EXPECT_EQ(sanitize_for_terminal("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(sanitize_for_terminal("x\ny\x7f"), "x\\x0ay\\x7f");
  EXPECT_EQ(sanitize_for_terminal("c1\xc2\x9b" "31m"), "c1\\x9b31m");  // U+009B (CSI)
  EXPECT_EQ(sanitize_for_terminal("caf\xc3\xa9\t"), "caf\xc3\xa9\t");  // UTF-8 and tab stay
}

TEST(Strings, Glob) {
  EXPECT_TRUE(glob_match("fftw_execute*", "fftw_execute_dft"));
  EXPECT_FALSE(glob_match("fftw_execute*", "fftw_plan"));
  EXPECT_TRUE(has_glob_chars("a?"));
  EXPECT_FALSE(has_glob_chars("ns::f"));
}

}  // namespace
}  // namespace roofprof
