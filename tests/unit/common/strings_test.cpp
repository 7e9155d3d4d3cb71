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

TEST(Strings, Glob) {
  EXPECT_TRUE(glob_match("fftw_execute*", "fftw_execute_dft"));
  EXPECT_FALSE(glob_match("fftw_execute*", "fftw_plan"));
  EXPECT_TRUE(has_glob_chars("a?"));
  EXPECT_FALSE(has_glob_chars("ns::f"));
}

}  // namespace
}  // namespace roofprof
