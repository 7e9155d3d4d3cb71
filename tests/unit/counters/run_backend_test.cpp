#include "counters/run_backend.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "counters/event_catalog.hpp"

namespace roofprof::counters {
namespace {

const EventSet& set_named(const std::string& model) {
  for (const EventSet& s : event_catalog())
    if (s.model == model) return s;
  throw std::runtime_error("no event set " + model);
}

TEST(Derive, SkylakeServerFlopsAreWeightedByLanesPerMergedClass) {
  // FP_ARITH_INST_RETIRED semantics: 1/2/4/8 per double instruction, 1/4/8/16 per single; the
  // merged umasks count instructions of equal weight together: 10 scalar double + 7 scalar
  // single (x1), 2 128-bit double (x2), 100 256-bit double + 5 128-bit single (x4), 3 512-bit
  // double (x8), 1 512-bit single (x16).
  std::map<std::string, double> totals{{"fp_scalar", 10 + 7}, {"dp_128", 2}, {"fp_x4", 100 + 5}, {"fp_x8", 3},
                                       {"sp_512", 1}};
  auto d = derive(set_named("skx"), totals);
  ASSERT_TRUE(d.flops);
  EXPECT_DOUBLE_EQ(*d.flops, 10 + 7 + 2 * 2 + 4 * 100 + 4 * 5 + 8 * 3 + 16 * 1);
  EXPECT_DOUBLE_EQ(d.flops_by_class.at("fp_x4"), 420);
  EXPECT_DOUBLE_EQ(d.flops_by_class.at("sp_512"), 16);
}

TEST(Derive, IntelPerCoreTrafficIsL2ToL3NotDram) {
  // L2_LINES_IN/OUT count lines between the core's L2 and L3 (LIKWID's L3 group): level L3.
  std::map<std::string, double> totals{{"fp_scalar", 1}, {"dp_128", 0}, {"fp_x4", 0}, {"fp_x8", 0}, {"sp_512", 0},
                                       {"l2_lines_in", 100}, {"l2_lines_out", 10}};
  auto d = derive(set_named("skx"), totals);
  ASSERT_EQ(d.bytes.count("L3"), 1u);
  EXPECT_EQ(d.bytes.count("DRAM"), 0u);
  EXPECT_DOUBLE_EQ(*d.bytes.at("L3").read, 6400);
  EXPECT_DOUBLE_EQ(*d.bytes.at("L3").write, 640);
  EXPECT_TRUE(d.bytes.at("L3").approximate);
}

TEST(Derive, AmdFillsFromDramAreDramReadsOnly) {
  auto d = derive(set_named("zen3"), {{"sp_dp", 5}, {"dram_fills", 10}});
  ASSERT_EQ(d.bytes.count("DRAM"), 1u);
  EXPECT_DOUBLE_EQ(*d.bytes.at("DRAM").read, 640);
  EXPECT_FALSE(d.bytes.at("DRAM").write);
  EXPECT_TRUE(d.bytes.at("DRAM").approximate);
}

TEST(Derive, NotCountedOrMissingEventsGiveUnknownNotZero) {
  std::map<std::string, double> totals{{"fp_scalar", std::nan("")}};
  auto d = derive(set_named("skx"), totals);
  EXPECT_FALSE(d.flops);
  EXPECT_TRUE(d.flops_not_counted);
  EXPECT_TRUE(d.bytes.empty());
  EXPECT_FALSE(derive(set_named("skx"), {}).flops_not_counted);  // missing is not "not counted"
}

TEST(Derive, HaswellHasNoFlops) {
  auto d = derive(set_named("hsw"), {});
  EXPECT_FALSE(d.flops);
}

}  // namespace
}  // namespace roofprof::counters
