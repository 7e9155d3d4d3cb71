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

// One call of `kernel` with the last level inclusive or not (non-inclusive: it holds the victims
// of the level above, rp_cache.h).
Result with_last_level(const std::string& kernel, long n, long flush, const char* geometry, bool inclusive) {
  const std::string path = fixture("emul_kernels_O2");
  Options o = with_cache(geometry);
  o.last_level_inclusive = inclusive;
  Result r = run({path, "cache", kernel, std::to_string(n), std::to_string(flush)}, entry_probes(path, {kernel}), o);
  EXPECT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(r.simulated_caches.back().inclusive, inclusive);
  return r;
}

// Cold daxpy (x and y, 16 n bytes, evicted by the flush): an inclusive L3 passes every line on its
// way from DRAM to L2; a non-inclusive one sees none of them, and receives instead every line L2
// evicts to make room (16 n bytes, the flush's lines first), clean or dirty. DRAM traffic is the same.
TEST(EmulCache, NonInclusiveLastLevelIsPassedByWhatComesFromDram) {
  const double n = 32768;  // 512 KiB in all: beyond L2, inside L3
  Result inc = with_last_level("daxpy", long(n), kFlush, kInLLC, true);
  Result vic = with_last_level("daxpy", long(n), kFlush, kInLLC, false);
  const auto& i = inc.instances.at(0);
  const auto& v = vic.instances.at(0);
  EXPECT_NEAR(value(inc, i, "bytes_read_L3"), 16 * n, 0.05 * 16 * n);
  EXPECT_LT(value(vic, v, "bytes_read_L3"), 0.01 * 16 * n);
  EXPECT_NEAR(value(vic, v, "bytes_written_L3"), 16 * n, 0.05 * 16 * n);
  EXPECT_NEAR(value(inc, i, "bytes_written_L3"), 8 * n, 0.05 * 8 * n);  // y's lines, charged at dirtying
  for (const char* c : {"bytes_read_DRAM", "bytes_written_DRAM", "bytes_read_L2", "bytes_written_L2"})
    EXPECT_NEAR(value(vic, v, c), value(inc, i, c), 0.02 * 16 * n) << c;
}

// Warm daxpy on 640 KiB, just written: more than the 512 KiB L3 holds, less than L2 and a
// non-inclusive L3 hold together. Inclusive, the sweep misses the L3 for much of it; non-inclusive,
// every line is still in L2 or L3 and none comes from DRAM.
TEST(EmulCache, NonInclusiveLastLevelAddsToTheLevelAbovesCapacity) {
  constexpr const char* kSmallL3 = "L1=32K:8:64,L2=256K:8:64,L3=512K:16:64";
  const double n = 40960;  // x and y: 640 KiB
  Result inc = with_last_level("daxpy", long(n), 0, kSmallL3, true);
  Result vic = with_last_level("daxpy", long(n), 0, kSmallL3, false);
  EXPECT_GT(value(inc, inc.instances.at(0), "bytes_read_DRAM"), 0.5 * 16 * n);
  EXPECT_LT(value(vic, vic.instances.at(0), "bytes_read_DRAM"), 0.01 * 16 * n);
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
