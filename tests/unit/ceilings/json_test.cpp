#include <gtest/gtest.h>

#include "ceilings/json.hpp"
#include "ceilings/names.hpp"
#include "common/error.hpp"

namespace roofprof::ceilings {
namespace {

Ceilings sample() {
  Ceilings c;
  c.machine = {"Test CPU", 2, "6.1.0-test", "0x42"};
  c.caches = {{1, 48 << 10, 0, 64, 1}, {2, 1 << 20, 0, 64, 1}, {3, 32 << 20, 0, 64, 2}};
  c.measured_caches = {{1, 45056}, {2, std::nullopt}, {3, 16 << 20}};
  c.isas = {"scalar", "sse", "avx2", "avx512"};
  c.method.mode = Mode::full;
  c.method.timer = "rdtscp+lfence";
  c.method.timer_ghz = 2.596;
  c.method.timer_overhead_ns = 9.5;
  c.method.sample_ms = 20;
  c.method.samples = 5;
  c.method.core_model = "AMD Zen 5 (512-bit datapath)";
  c.method.parts = {"compute", "bandwidth", "latency"};
  c.method.measured_at = "2026-01-02T03:04:05Z";
  c.method.seconds = 12.5;
  c.frequency = {{1, {3.9, 3.7, 4.0, 5}}, {2, {3.8, 3.6, 3.9, 5}}};
  c.compute = {{Isa::avx512, Precision::dp, Op::fma, 1, {120.5, 110.25, 121, 5}, 3.95, 126.4},
               {Isa::scalar, Precision::sp, Op::add_mul, 2, {30, 29, 31, 5}, 3.9, std::nullopt}};
  c.bandwidth = {{Level::l1, Kind::load, 1, Isa::avx512, 24576, {400, 350, 410, 5}, 400, 0, 480},
                 {Level::dram, Kind::copy, 2, Isa::avx512, 1 << 28, {20, 18, 21, 5}, 10, 10,
                  std::nullopt}};
  c.latency = {{Level::l2, 512 << 10, {3.5, 3.4, 3.7, 5}, 14}};
  c.sweep = {{4096, 420.5, 1.0}};
  return c;
}

TEST(CeilingsJson, RoundTripKeepsEveryField) {
  const Ceilings c = sample();
  const nlohmann::json j = to_json(c);
  const Ceilings back = from_json(nlohmann::json::parse(j.dump()), "test");
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.machine, c.machine);
  ASSERT_EQ(back.compute.size(), 2u);
  EXPECT_DOUBLE_EQ(back.compute[0].gflops.min, 110.25);
  EXPECT_FALSE(back.compute[1].theoretical_gflops.has_value());
  EXPECT_EQ(back.bandwidth[1].working_set_bytes, uint64_t(1) << 28);
  EXPECT_EQ(back.measured_caches, c.measured_caches);
}

// The measured hierarchy: one entry per level, null where the sweep found no knee; a file from
// before it has none and reads as not measured.
TEST(CeilingsJson, MeasuredCachesHaveNullForNoKneeAndMayBeAbsent) {
  nlohmann::json j = to_json(sample());
  EXPECT_EQ(j.at("measured_caches"), nlohmann::json::parse(R"([{"level": 1, "effective_bytes": 45056},
      {"level": 2, "effective_bytes": null}, {"level": 3, "effective_bytes": 16777216}])"));
  j.erase("measured_caches");
  EXPECT_TRUE(from_json(j, "old").measured_caches.empty());
  j["measured_caches"] = nlohmann::json::parse(R"([{"level": 3, "effective_bytes": 0}])");
  EXPECT_THROW(from_json(j, "x"), UserError);
}

TEST(CeilingsJson, HasTheDocumentedFieldsAndNullForUnknown) {
  const nlohmann::json j = to_json(sample());
  const auto& e = j.at("compute").at(0);
  EXPECT_EQ(e.at("isa"), "avx512");
  EXPECT_EQ(e.at("precision"), "dp");
  EXPECT_EQ(e.at("op"), "fma");
  EXPECT_EQ(e.at("threads"), 1);
  EXPECT_DOUBLE_EQ(e.at("gflops").get<double>(), 120.5);
  EXPECT_TRUE(j.at("compute").at(1).at("theoretical_gflops").is_null());
  const auto& b = j.at("bandwidth").at(0);
  EXPECT_EQ(b.at("level"), "L1");
  EXPECT_EQ(b.at("kind"), "load");
  EXPECT_DOUBLE_EQ(b.at("gbytes_per_s").get<double>(), 400);
  EXPECT_EQ(j.at("latency").at(0).at("level"), "L2");
  EXPECT_DOUBLE_EQ(j.at("latency").at(0).at("ns").get<double>(), 3.5);
}

TEST(CeilingsJson, RejectsOtherDocuments) {
  EXPECT_THROW(from_json(nlohmann::json::parse(R"({"schema": "something/1"})"), "x"), UserError);
  auto j = to_json(sample());
  j["compute"][0].erase("gflops");
  EXPECT_THROW(from_json(j, "x"), UserError);
  j = to_json(sample());
  j["bandwidth"][0]["kind"] = "teleport";
  EXPECT_THROW(from_json(j, "x"), UserError);
}

// Integer fields hold integers of their type: a float too large for int (fuzz_loaders found
// 7.8e38 as line_bytes, undefined behaviour in a plain get<int>) and a negative byte count are
// one-line errors; an integral float is accepted.
TEST(CeilingsJson, IntegerFieldsOutOfTheirRangeAreRejected) {
  auto j = to_json(sample());
  j["caches"][2]["line_bytes"] = 7.77778e38;
  EXPECT_THROW(from_json(j, "x"), UserError);
  j = to_json(sample());
  j["bandwidth"][0]["working_set_bytes"] = -4096;
  EXPECT_THROW(from_json(j, "x"), UserError);
  j = to_json(sample());
  j["frequency"][0]["threads"] = 1.5;
  EXPECT_THROW(from_json(j, "x"), UserError);
  j = to_json(sample());
  j["caches"][2]["line_bytes"] = 64.0;
  EXPECT_EQ(from_json(j, "x").caches[2].line, 64u);
}

TEST(CeilingsNames, ParseInvertsName) {
  for (Kind k : {Kind::load, Kind::store, Kind::nt_store, Kind::copy, Kind::triad, Kind::random})
    EXPECT_EQ(parse_kind(name(k)), k);
  for (Level l : {Level::l1, Level::l2, Level::l3, Level::dram}) EXPECT_EQ(parse_level(name(l)), l);
  EXPECT_THROW(parse_op("div"), UserError);
  EXPECT_EQ(lanes(Isa::avx512, Precision::sp), 16);
  EXPECT_EQ(lanes(Isa::scalar, Precision::dp), 1);
}

}  // namespace
}  // namespace roofprof::ceilings
