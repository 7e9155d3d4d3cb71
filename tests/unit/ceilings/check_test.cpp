// The sanity check of the ceilings (ceilings/check.hpp): each line against the others and
// its theoretical peak; a failing line is measured once more, then flagged.
#include <gtest/gtest.h>

#include "ceilings/check.hpp"
#include "ceilings/json.hpp"
#include "ceilings/table.hpp"

namespace roofprof::ceilings {
namespace {

ComputeCeiling compute(Isa isa, Op op, int threads, double gflops, std::optional<double> theory = std::nullopt) {
  return {isa, Precision::dp, op, threads, {gflops, gflops, gflops, 5}, 3.9, theory};
}

BandwidthCeiling bandwidth(Level level, Kind kind, int threads, double gbs) {
  return {level, kind, threads, Isa::avx2, 1 << 20, {gbs, gbs, gbs, 5}, gbs, 0, std::nullopt};
}

Ceilings consistent() {
  Ceilings c;
  c.machine.cores = 2;
  c.compute = {compute(Isa::scalar, Op::fma, 1, 15.0), compute(Isa::avx2, Op::fma, 1, 58.0, 62.4),
               compute(Isa::avx2, Op::add_mul, 1, 50.0), compute(Isa::scalar, Op::fma, 2, 29.0),
               compute(Isa::avx2, Op::fma, 2, 110.0)};
  c.bandwidth = {bandwidth(Level::l1, Kind::load, 1, 400), bandwidth(Level::l2, Kind::load, 1, 150),
                 bandwidth(Level::dram, Kind::load, 1, 20), bandwidth(Level::dram, Kind::load, 2, 21),
                 bandwidth(Level::l1, Kind::nt_store, 1, 10), bandwidth(Level::l2, Kind::nt_store, 1, 12)};
  return c;
}

TEST(CeilingsCheck, ConsistentLinesPassWithinTheMargin) {
  Ceilings c = consistent();
  EXPECT_TRUE(inconsistencies(c).empty());
  // 0.91 of the narrower line: within the 0.9 margin.
  c.compute[1].gflops = {0.91 * 15.0, 0.91 * 15.0, 0.91 * 15.0, 5};
  c.compute[1].theoretical_gflops = std::nullopt;
  c.compute[4].gflops = {29.0, 29.0, 29.0, 5};  // more threads may equal fewer (SMT siblings)
  c.compute[2].gflops = {14.0, 14.0, 14.0, 5};
  EXPECT_TRUE(inconsistencies(c).empty());
}

// As a real cached file had it: avx2 fma on 2 threads at 2.77 GFlop/s, an eighth of scalar's.
TEST(CeilingsCheck, WiderIsaBelowNarrowerIsFlagged) {
  Ceilings c = consistent();
  c.compute[1].gflops = {13.0, 13.0, 13.0, 5};  // avx2 fma, 1 thread, below scalar's 15
  const auto f = inconsistencies(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].compute);
  EXPECT_EQ(f[0].index, 1u);
  EXPECT_EQ(f[0].why, "below the narrower scalar dp fma, 1 thread (15.0 GFlop/s)");
}

// An FMA line is below no op of a narrower ISA (an FMA does two flops).
TEST(CeilingsCheck, FmaBelowAnyNarrowerOpIsFlagged) {
  Ceilings c;
  c.compute = {compute(Isa::scalar, Op::add_mul, 2, 22.7), compute(Isa::avx2, Op::fma, 2, 2.77),
               compute(Isa::avx2, Op::add, 2, 20.0)};
  const auto f = inconsistencies(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].index, 1u);
  EXPECT_EQ(f[0].why, "below the narrower scalar dp add_mul, 2 threads (22.7 GFlop/s)");
}

TEST(CeilingsCheck, MoreThreadsBelowFewerIsFlagged) {
  Ceilings c = consistent();
  c.compute[3].gflops = {13.0, 13.0, 13.0, 5};  // scalar fma, 2 threads, below 1 thread's 15
  const auto f = inconsistencies(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].index, 3u);
  EXPECT_EQ(f[0].why, "below fewer threads' scalar dp fma, 1 thread (15.0 GFlop/s)");
  c = consistent();
  c.bandwidth[3].gbytes_per_s = {15, 15, 15, 5};  // DRAM load, 2 threads, below 1 thread's 20
  ASSERT_EQ(inconsistencies(c).size(), 1u);
  EXPECT_EQ(inconsistencies(c)[0].why, "below fewer threads' DRAM load, 1 thread (20.0 GB/s)");
}

// A Zen 5 FMA roof as once measured: fma at 94.1 while add_mul of the same width reached 105.1.
TEST(CeilingsCheck, FmaBelowAddMulOfTheSameWidthIsFlagged) {
  Ceilings c = consistent();
  c.compute[1].gflops = {94.1, 94.1, 94.1, 5};
  c.compute[1].theoretical_gflops = std::nullopt;
  c.compute[2].gflops = {105.1, 105.1, 105.1, 5};
  const auto f = inconsistencies(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].index, 1u);
  EXPECT_EQ(f[0].why, "below avx2 dp add_mul, 1 thread (105.1 GFlop/s)");
}

TEST(CeilingsCheck, AboveTheoreticalPeakIsFlagged) {
  Ceilings c = consistent();
  c.compute[1].gflops = {66.0, 66.0, 66.0, 5};  // 1.058 x 62.4
  ASSERT_EQ(inconsistencies(c).size(), 1u);
  EXPECT_EQ(inconsistencies(c)[0].why, "above its theoretical peak (62.4 GFlop/s)");
  c.compute[1].gflops = {65.0, 65.0, 65.0, 5};  // 1.042 x: within the margin
  EXPECT_TRUE(inconsistencies(c).empty());
  c.bandwidth[0].theoretical_gbytes_per_s = 370;
  ASSERT_EQ(inconsistencies(c).size(), 1u);
  EXPECT_FALSE(inconsistencies(c)[0].compute);
}

// A farther level faster than a nearer one (its working set did not leave the nearer level, or
// the nearer one was disturbed); non-temporal stores bypass the caches and are left out.
TEST(CeilingsCheck, FartherLevelAboveANearerOneIsFlagged) {
  Ceilings c = consistent();
  c.bandwidth[2].gbytes_per_s = {170, 170, 170, 5};  // DRAM load above L2's 150
  c.bandwidth[3].gbytes_per_s = {170, 170, 170, 5};
  const auto f = inconsistencies(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].index, 2u);
  EXPECT_EQ(f[0].why, "above the nearer level's L2 load, 1 thread (150.0 GB/s)");
}

// During the measurement: a failing line is measured once more; if the new value passes it
// replaces the old one unflagged, else the line is flagged, in the file and in the table.
TEST(CeilingsCheck, FailingLineIsRemeasuredOnceThenFlagged) {
  Ceilings c = consistent();
  c.compute[4].gflops = {2.77, 2.77, 2.77, 5};
  int calls = 0;
  Remeasure again;
  again.compute = [&](const ComputeCeiling& x) {
    ++calls;
    EXPECT_EQ(describe(x), "avx2 dp fma, 2 threads");
    return x;  // as low again
  };
  again.bandwidth = [&](const BandwidthCeiling& x) {
    ADD_FAILURE() << "no bandwidth line failed";
    return x;
  };
  const auto flagged = remeasure_and_flag(c, again);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(flagged.size(), 1u);
  // The first reason found: the same line on 1 thread (58), before scalar's on 2 (29).
  EXPECT_EQ(flagged[0], "avx2 dp fma, 2 threads: below fewer threads' avx2 dp fma, 1 thread (58.0 GFlop/s)");
  EXPECT_EQ(c.compute[4].flagged, "below fewer threads' avx2 dp fma, 1 thread (58.0 GFlop/s)");
  EXPECT_EQ(to_json(c)["compute"][4]["flagged"], c.compute[4].flagged);
  EXPECT_FALSE(to_json(c)["compute"][3].contains("flagged"));
  EXPECT_EQ(from_json(to_json(c), "test").compute[4].flagged, c.compute[4].flagged);
  const std::string table = format_table(c);
  EXPECT_NE(table.find("FLAGGED: inconsistent"), std::string::npos) << table;
  EXPECT_NE(table.find("  avx2 dp fma, 2 threads: below fewer threads'"), std::string::npos) << table;

  Ceilings d = consistent();
  d.compute[4].gflops = {2.77, 2.77, 2.77, 5};
  again.compute = [&](const ComputeCeiling& x) {
    ComputeCeiling y = x;
    y.gflops = {112.0, 111.0, 113.0, 5};
    return y;
  };
  EXPECT_TRUE(remeasure_and_flag(d, again).empty());
  EXPECT_DOUBLE_EQ(d.compute[4].gflops.median, 112.0);
  EXPECT_TRUE(d.compute[4].flagged.empty());
}

// A file read later (cache, report --ceilings) is checked again; lines flagged already keep
// their reason and are not reported as new.
TEST(CeilingsCheck, FlagInconsistentMarksOnlyNewFailures) {
  Ceilings c = consistent();
  c.compute[4].gflops = {2.77, 2.77, 2.77, 5};
  const auto first = flag_inconsistent(c);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(flag_inconsistent(c).empty());
  EXPECT_EQ(flagged_lines(c), first);
}

}  // namespace
}  // namespace roofprof::ceilings
