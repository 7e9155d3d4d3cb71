#include "common/strings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

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

// closest skips candidates by length alone once it has `count` better ones: the same list as
// scoring every candidate and sorting (distance, then name).
TEST(Strings, ClosestEqualsScoringEveryCandidate) {
  const std::vector<std::string> names = {"dgemm_", "dgemv_", "sgemm_", "daxpy", "printf", "pre_work", "pre_b_work",
                                          "pre_ld", "a", "abcdefghijklmnopqrstuvwxyz", "gemm", "dgemm_naive"};
  for (const std::string word : {"gemm", "dgem_", "pre_wrk", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "", "x"}) {
    for (size_t count : {1, 3, 5, 20}) {
      std::vector<std::pair<size_t, std::string>> all;
      for (const auto& n : names)
        all.emplace_back(!word.empty() && n.find(word) != std::string::npos ? std::min<size_t>(edit_distance(word, n), 1)
                                                                            : edit_distance(word, n),
                         n);
      std::sort(all.begin(), all.end());
      std::vector<std::string> want;
      for (size_t i = 0; i < all.size() && i < count; ++i) want.push_back(all[i].second);
      EXPECT_EQ(closest(word, names, count), want) << word << " " << count;
    }
  }
}

// A 20 KB name once took 82 s before "unknown region". The table is three rows, the
// work |word| x |candidate| per candidate.
TEST(Strings, ClosestToALongWordIsQuick) {
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) names.push_back("function_name_" + std::to_string(i));
  const auto start = std::chrono::steady_clock::now();
  auto c = closest(std::string(4096, 'f'), names, 5);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(c.size(), 5u);
  EXPECT_LT(s, 10) << "4096 x 3000 x 20 cells: about a second on the development VM; the old table took minutes";
}

TEST(Strings, ShortenForMessage) {
  EXPECT_EQ(shorten_for_message("dgemm_"), "dgemm_");
  EXPECT_EQ(shorten_for_message(std::string(300, 'a'), 10), "aaaaaaaaaa... (300 bytes)");
  EXPECT_EQ(shorten_for_message("caf\xc3\xa9s", 4), "caf... (6 bytes)") << "never half a UTF-8 character";
  EXPECT_EQ(shorten_for_message(std::string(1 << 20, 'm')).size(), kMessageNameBytes + 19);
}

TEST(Strings, ShortenLongWords) {
  EXPECT_EQ(shorten_long_words("cannot read 'x.json' (No such file)"), "cannot read 'x.json' (No such file)");
  EXPECT_EQ(shorten_long_words("cannot read " + std::string(50, 'm') + " now", 6), "cannot read mmmmmm... (50 bytes) now");
  EXPECT_EQ(shorten_long_words(" a  b ", 5), " a  b ") << "spaces kept as they are";
}

TEST(Strings, PathBasename) {
  EXPECT_EQ(path_basename("/lib/x86_64-linux-gnu/libc.so.6"), "libc.so.6");
  EXPECT_EQ(path_basename("demo"), "demo");
  EXPECT_EQ(path_basename("dir/"), "");
}

// Fault suite (hostile input files): names from files cannot drive the terminal.
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
