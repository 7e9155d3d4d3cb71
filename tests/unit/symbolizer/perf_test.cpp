// Opening big system libraries stays fast (OpenBLAS has ~15k function symbols). The bounds
// are loose for a shared, busy machine; typical times are ~25 ms (OpenBLAS) and ~1 ms (libc).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "symbolizer/modules.hpp"

namespace roofprof::symbolizer {
namespace {

double open_and_list_ms(const std::string& path, size_t* count) {
  auto t0 = std::chrono::steady_clock::now();
  auto elf = ElfFile::open(path);
  *count = elf->functions().size();
  all_function_names({elf.get()});
  match_functions("*gemm*", {elf.get()});
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Performance, OpenBlas) {
  std::string path = "/usr/lib/x86_64-linux-gnu/libopenblas.so.0";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "libopenblas0 is not installed";
  size_t count = 0;
  double ms = open_and_list_ms(path, &count);
  EXPECT_GT(count, 10000u);
  EXPECT_LT(ms, 400.0);
  RecordProperty("open_ms", std::to_string(ms));
  auto elf = ElfFile::open(path);
  auto m = match_functions("dgemm_", {elf.get()});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "dgemm_");
}

TEST(Performance, Libc) {
  size_t count = 0;
  double ms = open_and_list_ms("/lib/x86_64-linux-gnu/libc.so.6", &count);
  EXPECT_GT(count, 1000u);
  EXPECT_LT(ms, 400.0);
}

}  // namespace
}  // namespace roofprof::symbolizer
