// The event-set file format: parsing, validation errors with line numbers, formulas.
#include "counters/event_set.hpp"

#include <cmath>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/backend.hpp"

namespace roofprof::counters {
namespace {

constexpr const char* kGood = R"(# comment line
model   demo
title   Demo CPU   # trailing comment
vendor  intel
match pfm demo_pmu other_pmu
match cpu 6 0x55 85 0x60-0x6f
counters 4
counters 6 @cpu_atom
event cycles   UNHALTED_CORE_CYCLES fixed
event dp       FP_ARITH_INST_RETIRED:SCALAR_DOUBLE
event dp_256   FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE
event flops    RETIRED_SSE_AVX_FLOPS:ANY pair
event atom_cyc raw:0x3c @cpu_atom fixed
uncore cas_rd  demo_unc_imc{0..2}::UNC_M_CAS_COUNT:RD @uncore_imc_{0..2}
uncore cas_rd  raw:0x01 @uncore_imc
formula W = 1*dp + 4*dp_256 + flops
formula Q.read = 64*cas_rd
approx  Q.read = 0.5*dp
note first note
)";

TEST(EventSetParse, ReadsEveryKeyword) {
  const EventSet s = parse_event_set(kGood, "demo.txt");
  EXPECT_EQ(s.model, "demo");
  EXPECT_EQ(s.title, "Demo CPU");
  EXPECT_EQ(s.vendor, "intel");
  EXPECT_EQ(s.pfm_pmus, (std::vector<std::string>{"demo_pmu", "other_pmu"}));
  EXPECT_EQ(s.cpus, (std::vector<CpuModels>{{6, 0x55, 0x55}, {6, 85, 85}, {6, 0x60, 0x6f}}));
  EXPECT_EQ(s.counter_limit(""), 4);
  EXPECT_EQ(s.counter_limit("cpu_atom"), 6);
  EXPECT_EQ(s.counter_limit("cpu_core"), 0);
  ASSERT_EQ(s.events.size(), 9u);  // 5 thread + 3 expanded uncore + 1 raw uncore
  EXPECT_TRUE(s.events[0].fixed);
  EXPECT_EQ(s.events[3].cost, 2);
  EXPECT_EQ(s.events[4].perf_pmu, "cpu_atom");
  EXPECT_EQ(s.events[4].encoding, "raw:0x3c");
  EXPECT_EQ(s.events[5].encoding, "demo_unc_imc0::UNC_M_CAS_COUNT:RD");
  EXPECT_EQ(s.events[7].encoding, "demo_unc_imc2::UNC_M_CAS_COUNT:RD");
  EXPECT_EQ(s.events[7].perf_pmu, "uncore_imc_2");
  EXPECT_EQ(s.events[7].scope, EventScope::uncore);
  EXPECT_EQ(s.lines(EventScope::thread).size(), 5u);
  EXPECT_EQ(s.lines(EventScope::uncore).size(), 4u);
  EXPECT_FALSE(s.fp_missing.has_value());
  ASSERT_NE(s.formula("W"), nullptr);
  EXPECT_EQ(to_string(*s.formula("W")), "1*dp + 4*dp_256 + 1*flops");
  ASSERT_NE(s.formula("Q.read", true), nullptr);
  EXPECT_TRUE(s.formula("Q.read", true)->approximate);
  EXPECT_FALSE(s.formula("Q.read")->approximate);
  EXPECT_EQ(s.formula("Q.write"), nullptr);
  EXPECT_EQ(s.notes, (std::vector<std::string>{"first note"}));
}

TEST(EventSetParse, EvaluatesFormulasAndPropagatesUnknowns) {
  const EventSet s = parse_event_set(kGood, "demo.txt");
  const Formula& w = *s.formula("W");
  EXPECT_EQ(evaluate(w, {{"dp", 10}, {"dp_256", 3}, {"flops", 7}}), 10 + 12 + 7);
  EXPECT_EQ(evaluate(w, {{"dp", 10}, {"dp_256", 3}}), std::nullopt);  // missing id
  EXPECT_EQ(evaluate(w, {{"dp", 10}, {"dp_256", kNotCounted}, {"flops", 7}}), std::nullopt);
  EXPECT_EQ(evaluate(*s.formula("Q.read"), {{"cas_rd", 1000}}), 64000);
}

std::string error_of(const std::string& text) {
  try {
    parse_event_set(text, "bad.txt");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kHead = "model m\ntitle t\nvendor amd\nmatch pfm p\ncounters 2\n";

TEST(EventSetParse, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of(kHead + "bogus line\n"), "bad.txt:6: unknown keyword 'bogus'");
  EXPECT_EQ(error_of(kHead + "event Dp X\nformula W = dp\n"),
            "bad.txt:6: bad id 'Dp' (lower case, digits, _)");
  EXPECT_EQ(error_of(kHead + "event dp X\nformula W = 2*dq\n"),
            "bad.txt:7: formula uses undefined id 'dq'");
  EXPECT_EQ(error_of(kHead + "event dp X\nevent dp Y\nformula W = dp\n"),
            "bad.txt:7: id 'dp' defined twice (only uncore ids may repeat: they are summed)");
  EXPECT_EQ(error_of(kHead + "event dp X sideways\nformula W = dp\n"),
            "bad.txt:6: unknown event attribute 'sideways' (raw:0x.. fallback, @pmu, fixed, pair)");
  EXPECT_EQ(error_of(kHead + "uncore c X\nformula W = c\n"),
            "bad.txt:6: uncore events need @<sysfs pmu>, e.g. @uncore_imc_0");
  EXPECT_EQ(error_of(kHead + "event dp X @cpu_atom\nformula W = dp\n"),
            "bad.txt:6: no `counters` line for PMU 'cpu_atom'");
  EXPECT_EQ(error_of(kHead + "event dp raw:0xzz\nformula W = dp\n"),
            "bad.txt:6: bad raw encoding 'raw:0xzz'");
  EXPECT_EQ(error_of(kHead + "event dp X\nformula W = -1*dp\n"), "bad.txt:7: bad weight '-1'");
  EXPECT_EQ(error_of(kHead + "event dp X\n"), "bad.txt:1: missing `formula W = ...` (or `fp none REASON`)");
  EXPECT_EQ(error_of(kHead + "fp none no counters\nevent dp X\nformula W = dp\n"),
            "bad.txt:1: `fp none` and a W formula contradict each other");
  EXPECT_EQ(error_of("title t\nvendor amd\nmatch pfm p\nfp none x\n"), "bad.txt:1: missing `model`");
  EXPECT_EQ(error_of(kHead + "match cpu 0x19 0x6f-0x60\n"), "bad.txt:6: model range '0x6f-0x60' ends before it starts");
  EXPECT_EQ(error_of(kHead + "match cpu 0x19 0x60-x\n"), "bad.txt:6: not a number: 'x'");
  EXPECT_EQ(error_of(kHead + "uncore c u{3..1}::X @imc_{3..1}\n"), "bad.txt:6: bad range {3..1}");
  EXPECT_EQ(error_of(kHead + "uncore c u{0..99}::X @imc_{0..99}\n"), "bad.txt:6: bad range {0..99}");
  EXPECT_EQ(error_of(kHead + "uncore c u{0..1}::X @imc_{0..2}\n"), "bad.txt:6: only one {a..b} range per line");
}

TEST(EventSetParse, RangeExpandsEverywhereAndOnlyWhenWellFormed) {
  const EventSet s = parse_event_set(kHead + "uncore c x{1..2}y{}::{1..}{1..2} @imc_{1..2}\nformula W = c\n", "r.txt");
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].encoding, "x1y{}::{1..}1");  // "{}" and "{1..}" are not ranges: left as they are
  EXPECT_EQ(s.events[1].encoding, "x2y{}::{1..}2");
  EXPECT_EQ(s.events[1].perf_pmu, "imc_2");
}

TEST(CpuModels, RangesIncludeBothEndsOfTheirFamilyOnly) {
  const CpuModels zen4{0x19, 0x60, 0xaf};
  EXPECT_TRUE(zen4.contains(0x19, 0x60));
  EXPECT_TRUE(zen4.contains(0x19, 0xaf));
  EXPECT_FALSE(zen4.contains(0x19, 0x5f));
  EXPECT_FALSE(zen4.contains(0x19, 0xb0));
  EXPECT_FALSE(zen4.contains(0x1a, 0x60));
}

TEST(EventSetParse, FpNoneSetHasNoW) {
  const EventSet s = parse_event_set(kHead + "fp none Haswell has none\nevent c X fixed\n", "h.txt");
  ASSERT_TRUE(s.fp_missing.has_value());
  EXPECT_EQ(*s.fp_missing, "Haswell has none");
  EXPECT_EQ(s.formula("W"), nullptr);
}

}  // namespace
}  // namespace roofprof::counters
