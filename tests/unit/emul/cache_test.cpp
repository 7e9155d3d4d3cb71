// Cache simulation: compulsory DRAM traffic of cold kernels that fit in the last level
// (the seed paper's Table I), growth beyond it, non-temporal stores. Small explicit
// geometries keep the runs short; the model does not depend on the sizes.
#include <gtest/gtest.h>

#include <map>

#include "tests/unit/emul/emul_test_util.hpp"

namespace roofprof::emul::test {
namespace {

Options with_cache(const char* geometry) {
  Options o;
  o.cache_sim = true;
  o.cache = parse_cache_geometry(geometry);
  return o;
}

// One cold call of `kernel` (the arrays evicted by touching `flush` bytes first).
regions::Instance cold(const Result*& out, const std::string& kernel, long n, long flush, const char* geometry) {
  static std::map<std::string, Result> runs;
  std::string key = kernel + std::to_string(n) + geometry;
  auto it = runs.find(key);
  if (it == runs.end()) {
    std::string path = fixture("emul_kernels_O2");
    it = runs.emplace(key, run({path, "cache", kernel, std::to_string(n), std::to_string(flush)},
                               entry_probes(path, {kernel}), with_cache(geometry)))
             .first;
  }
  out = &it->second;
  EXPECT_EQ(it->second.instances.size(), 1u);
  return it->second.instances.at(0);
}

double dram(const Result& r, const regions::Instance& i) {
  return value(r, i, "bytes_read_DRAM") + value(r, i, "bytes_written_DRAM");
}

constexpr const char* kInLLC = "L1=32K:8:64,L2=256K:8:64,L3=2M:16:64";
constexpr long kFlush = 8 << 20;

TEST(EmulCache, CountersNameEachInterface) {
  const Result* r;
  cold(r, "daxpy", 32768, kFlush, kInLLC);
  std::vector<std::string> tail(r->counters.end() - 6, r->counters.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"bytes_read_L2", "bytes_written_L2", "bytes_read_L3", "bytes_written_L3",
                                            "bytes_read_DRAM", "bytes_written_DRAM"}));
}

TEST(EmulCache, ColdDaxpyMovesTwentyFourBytesPerElement) {
  const Result* r;
  const double n = 32768;  // 768 KiB: beyond L2, inside L3
  auto i = cold(r, "daxpy", long(n), kFlush, kInLLC);
  EXPECT_NEAR(dram(*r, i), 24 * n, 0.05 * 24 * n);
  EXPECT_NEAR(value(*r, i, "bytes_read_DRAM"), 16 * n, 0.05 * 16 * n);
  // y's write-backs are charged when its lines become dirty, inside the call.
  EXPECT_NEAR(value(*r, i, "bytes_written_DRAM"), 8 * n, 0.05 * 8 * n);
}

TEST(EmulCache, ColdDgemvMovesTheMatrixAndThreeVectors) {
  const Result* r;
  const double n = 256;
  auto i = cold(r, "dgemv", long(n), kFlush, kInLLC);
  double q = 8 * n * n + 24 * n;
  EXPECT_NEAR(dram(*r, i), q, 0.05 * q);
}

TEST(EmulCache, ColdDgemmInsideTheLastLevelMovesEachMatrixOnce) {
  const Result* r;
  const double n = 128;  // 3 x 128 KiB
  auto i = cold(r, "dgemm", long(n), kFlush, kInLLC);
  EXPECT_NEAR(dram(*r, i), 32 * n * n, 0.05 * 32 * n * n);
}

TEST(EmulCache, NaiveDgemmBeyondTheLastLevelMovesMore) {
  constexpr const char* kTiny = "L1=8K:8:64,L2=32K:8:64,L3=128K:16:64";
  const Result* r;
  double n = 64;  // B (32 KiB) stays in L3: compulsory traffic only
  auto small = cold(r, "dgemm", long(n), 1 << 20, kTiny);
  EXPECT_NEAR(dram(*r, small), 32 * n * n, 0.05 * 32 * n * n);
  for (double big : {128.0, 160.0}) {
    // B (128, 200 KiB) no longer fits: the k loop re-reads it for every row of A, 8 n^3 bytes.
    auto i = cold(r, "dgemm", long(big), 1 << 20, kTiny);
    EXPECT_GT(dram(*r, i), 0.9 * 8 * big * big * big) << "n=" << big;
  }
}

// The simulator's fast path is tested by inline code before each call (rp_instrument.c): it
// must skip exactly the calls that change nothing. Every counter of a run with it equals the
// run without it, on stores (lines turning dirty), a triple loop (hits in other ways than the
// MRU) and unaligned doubles (one access in eight spans two lines).
TEST(EmulCache, InlineFastPathCountsExactlyWhatEveryCallCounts) {
  const std::string path = fixture("emul_kernels_O2");
  for (const char* kernel : {"daxpy", "dgemm", "daxpy_unaligned"}) {
    const std::string n = std::string(kernel) == "dgemm" ? "48" : "20000";
    Options inline_test = with_cache(kInLLC), every_call = with_cache(kInLLC);
    every_call.cache_inline = false;
    auto a = run({path, "cache", kernel, n, "262144"}, entry_probes(path, {kernel}), inline_test);
    auto b = run({path, "cache", kernel, n, "262144"}, entry_probes(path, {kernel}), every_call);
    ASSERT_EQ(a.instances.size(), 1u) << kernel;
    ASSERT_EQ(b.instances.size(), 1u) << kernel;
    EXPECT_EQ(a.counters, b.counters);
    EXPECT_EQ(a.instances[0].counts, b.instances[0].counts) << kernel;
    ASSERT_EQ(a.totals.size(), 1u) << kernel;
    ASSERT_EQ(b.totals.size(), 1u) << kernel;
    EXPECT_EQ(a.totals.begin()->second, b.totals.begin()->second) << kernel;  // the whole process
    EXPECT_GT(value(a, a.instances[0], "bytes_read_L2"), 0) << kernel;
  }
}

TEST(EmulCache, NonTemporalStoresGoStraightToDram) {
  std::string path = fixture("emul_insn_table");
  // t_movntpd stores 16 bytes to the buffer's first line; t_rep_movsb reads it next.
  auto r = run({path}, entry_probes(path, {"t_movntpd", "t_rep_movsb"}), with_cache(kInLLC));
  auto nt = of_region(r, 0), next = of_region(r, 1);
  ASSERT_EQ(nt.size(), 1u);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(value(r, nt[0], "bytes_written_DRAM"), 16);
  EXPECT_EQ(value(r, nt[0], "bytes_written_L2"), 0);
  EXPECT_EQ(value(r, nt[0], "bytes_read_L2"), 0);
  // The store took the line out of the caches: it comes back from DRAM.
  EXPECT_GE(value(r, next[0], "bytes_read_DRAM"), 64);
}

}  // namespace
}  // namespace roofprof::emul::test
