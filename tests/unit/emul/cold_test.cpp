// The cold scenario (run --cache-state cold, Options::cold_at_entry): the simulated caches are
// emptied at each outermost region entry. The fixture calls daxpy twice (n = 1000, then 1003)
// on arrays it has just initialised, so they are in the caches: warm, neither call moves a
// DRAM byte; cold, each pays its compulsory traffic 24n, plus at most a few lines (unaligned
// array ends and the line of the return address that `ret` reads).
#include <gtest/gtest.h>

#include "tests/unit/emul/emul_test_util.hpp"

namespace roofprof::emul::test {
namespace {

constexpr const char* kGeometry = "L1=32K:8:64,L2=256K:8:64,L3=2M:16:64";

Result daxpy_twice(bool cold) {
  Options o;
  o.cache_sim = true;
  o.cache = parse_cache_geometry(kGeometry);
  o.cold_at_entry = cold;
  std::string path = fixture("emul_kernels_O2");
  return run({path, "counts"}, entry_probes(path, {"daxpy"}), o);
}

TEST(ColdCache, WarmCallsOnCachedDataMoveNoDramBytes) {
  Result r = daxpy_twice(false);
  auto calls = of_region(r, 0);
  ASSERT_EQ(calls.size(), 2u);
  for (const auto& c : calls) {
    EXPECT_EQ(value(r, c, "bytes_read_DRAM"), 0);
    EXPECT_EQ(value(r, c, "bytes_written_DRAM"), 0);
  }
}

TEST(ColdCache, ColdCallsPayTheCompulsoryTrafficEachTime) {
  Result r = daxpy_twice(true);
  auto calls = of_region(r, 0);
  ASSERT_EQ(calls.size(), 2u);
  const long n[] = {1000, 1003};
  for (size_t i = 0; i < 2; ++i) {
    double read = value(r, calls[i], "bytes_read_DRAM"), written = value(r, calls[i], "bytes_written_DRAM");
    // An array of B bytes spans at most ceil(B / 64) + 1 lines (it need not start on a line).
    const double lines = double((8 * n[i] + 63) / 64 + 1) * 64;
    EXPECT_GE(read, 16.0 * n[i]) << "call " << i;
    EXPECT_LE(read, 2 * lines + 64) << "call " << i;  // x and y, and the line of the return address
    EXPECT_GE(written, 8.0 * n[i]) << "call " << i;
    EXPECT_LE(written, lines) << "call " << i;  // y
    // Every level was emptied: L2 and L3 traffic equal DRAM's (nothing hits below L1).
    EXPECT_EQ(value(r, calls[i], "bytes_read_L3"), read) << "call " << i;
  }
  // The flush changes where the traffic lands, not the work.
  EXPECT_EQ(flops(r, calls[0]), 2000);
  EXPECT_EQ(flops(r, calls[1]), 2006);
}

}  // namespace
}  // namespace roofprof::emul::test
