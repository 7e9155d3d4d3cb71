#include "survey/variants.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace roofprof::survey {
namespace {

TEST(DispatchFamily, InstructionSetAndCpuWordsAreReplaced) {
  EXPECT_EQ(dispatch_family("dgemm_kernel_ZEN"), "dgemm_kernel_*");
  EXPECT_EQ(dispatch_family("dgemm_kernel_HASWELL"), "dgemm_kernel_*");
  EXPECT_EQ(dispatch_family("__memmove_avx_unaligned_erms"), "__memmove_*_unaligned_erms");
  EXPECT_EQ(dispatch_family("__memmove_sse2_unaligned_erms"), "__memmove_*_unaligned_erms");
  EXPECT_EQ(dispatch_family("__strchr_sse4_2"), "__strchr_*");  // the number belongs to the word
  EXPECT_EQ(dispatch_family("dgemm_kernel_OPTERON_SSE3"), "dgemm_kernel_*");  // a run of words: one "*"
  EXPECT_EQ(dispatch_family("fftw_codelet_n1fv_64_avx2"), "fftw_codelet_n1fv_64_*");
}

TEST(DispatchFamily, NamesWithoutSuchWordsHaveNone) {
  EXPECT_EQ(dispatch_family("dgemm_"), "");
  EXPECT_EQ(dispatch_family("main"), "");
  EXPECT_EQ(dispatch_family("zenith_avx2x"), "");     // whole words only
  EXPECT_EQ(dispatch_family("blocked_2_4"), "");      // numbers alone are no such word
  EXPECT_EQ(dispatch_family(""), "");
}

result::SurveyFunction sampled(const std::string& module, const std::string& symbol) {
  result::SurveyFunction f;
  f.name = f.symbol = symbol;
  f.module = module;
  f.address = 0x1000;
  f.probe = "patch";
  f.self_samples = f.total_samples = 10;
  return f;
}

// OpenBLAS's DYNAMIC_ARCH library (a dependency of the project): the sampled ZEN kernel's
// variants, HASWELL among them, come right after it; other functions get none.
TEST(DispatchVariants, OpenBlasKernelsOfEveryCpuFollowTheSampledOne) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0";
  if (!std::filesystem::exists(lib)) GTEST_SKIP() << lib << " is not installed (scripts/install-deps.sh)";
  result::Survey s;
  s.functions = {sampled(lib, "dgemm_kernel_ZEN"), sampled(lib, "dgemm_")};
  symbolizer::ElfCache cache;
  const size_t added = add_dispatch_variants(s, cache);
  ASSERT_GE(added, 10u);  // 0.3.21 has 19 other cores
  ASSERT_EQ(s.functions.size(), 2 + added);
  EXPECT_EQ(s.functions[0].symbol, "dgemm_kernel_ZEN");
  EXPECT_EQ(s.functions.back().symbol, "dgemm_");
  bool haswell = false;
  for (size_t i = 1; i < s.functions.size() - 1; ++i) {
    const auto& v = s.functions[i];
    EXPECT_EQ(v.variant_of, std::optional<std::string>("dgemm_kernel_ZEN")) << v.symbol;
    EXPECT_EQ(dispatch_family(v.symbol), "dgemm_kernel_*") << v.symbol;
    EXPECT_EQ(v.self_samples, 0u);
    EXPECT_EQ(v.module, lib);
    EXPECT_NE(v.probe, "none") << v.symbol;
    haswell |= v.symbol == "dgemm_kernel_HASWELL";
  }
  EXPECT_TRUE(haswell);
  // Those the emulated run did not reach go again.
  s.functions[1].region = 0;
  drop_unreached_variants(s);
  ASSERT_EQ(s.functions.size(), 3u);
  EXPECT_EQ(s.functions[1].region, std::optional<uint64_t>(0));
}

}  // namespace
}  // namespace roofprof::survey
