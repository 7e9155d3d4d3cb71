#include "counters/user_events.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"
#include "counters/event_encoding.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {
namespace {

TEST(UserEvents, WeightedEventsMakeW) {
  const EventSet s = event_set_from_user(
      {"skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE:SCALAR_SINGLE*1,"
       "skx::FP_ARITH_INST_RETIRED:128B_PACKED_SINGLE:256B_PACKED_DOUBLE*4",
       "skx::UNHALTED_CORE_CYCLES"},
      find_event_set("skx"));
  ASSERT_EQ(s.events.size(), 3u);
  EXPECT_EQ(s.events[0].id, "fp_arith_inst_retired_scalar_double_scalar_single");
  EXPECT_EQ(s.events[1].id, "fp_arith_inst_retired_128b_packed_single_256b_packed_double");
  EXPECT_EQ(s.events[2].id, "unhalted_core_cycles");
  EXPECT_EQ(s.counter_limit(""), 4);
  ASSERT_NE(s.formula("W"), nullptr);
  EXPECT_EQ(to_string(*s.formula("W")),
            "1*fp_arith_inst_retired_scalar_double_scalar_single + "
            "4*fp_arith_inst_retired_128b_packed_single_256b_packed_double");
  PfmLibrary pfm(true);
  const auto enc = encode_event_set(s, pfm, "");
  EXPECT_EQ(enc[0].config, 0x03c7u);  // umasks 0x01 | 0x02 (Intel calls it .SCALAR from ICL on)
  EXPECT_EQ(enc[1].config, 0x18c7u);  // umasks 0x08 | 0x10 (.4_FLOPS from ICL on)
}

TEST(UserEvents, MalformedSpecsAreUserErrors) {
  EXPECT_THROW(event_set_from_user({"FP_ARITH_INST_RETIRED:SCALAR*1"}, nullptr), UserError);
  EXPECT_THROW(event_set_from_user({"skx::FP_ARITH_INST_RETIRED:SCALAR*x"}, nullptr), UserError);
  EXPECT_THROW(event_set_from_user({""}, nullptr), UserError);
  const EventSet unweighted = event_set_from_user({"skx::UNHALTED_CORE_CYCLES"}, nullptr);
  EXPECT_TRUE(unweighted.fp_missing.has_value());
  EXPECT_EQ(unweighted.formula("W"), nullptr);
}

}  // namespace
}  // namespace roofprof::counters
