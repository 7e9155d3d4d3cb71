#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/error.hpp"
#include "result/result.hpp"
#include "tests/unit/result/sample_run.hpp"

namespace roofprof::result {
namespace {

using nlohmann::json;

result::Run through_text(const result::Run& run) {
  return from_json(json::parse(to_json(run).dump()));
}

TEST(ResultJson, RoundTripKeepsEveryFieldExactly) {
  result::Run run = samples::sample_run();
  result::Run back = through_text(run);
  EXPECT_EQ(back, run);
  // Field by field as well, so that a failure says which one.
  EXPECT_EQ(back.command, run.command);
  EXPECT_EQ(back.pid, std::nullopt);
  EXPECT_EQ(back.exit_status, std::nullopt);
  EXPECT_EQ(back.term_signal, 11);
  EXPECT_EQ(back.wall_time_s, run.wall_time_s);
  EXPECT_EQ(back.host, run.host);
  ASSERT_EQ(back.regions.size(), 2u);
  EXPECT_EQ(back.regions[0].calls, run.regions[0].calls);
  EXPECT_EQ(back.regions[0].time_s, 1.0 / 3.0);
  EXPECT_EQ(back.regions[0].time_per_call_s, run.regions[0].time_per_call_s);
  EXPECT_EQ(back.regions[0].bytes, run.regions[0].bytes);
  EXPECT_EQ(back.regions[1].time_per_call_s, std::nullopt);
  EXPECT_EQ(back.regions[1].flops, std::nullopt);
  EXPECT_EQ(back.regions[1].instructions, 0.0);
  EXPECT_EQ(back.warnings, run.warnings);
}

// A region's threads: each thread's part, the others' W and the spread round-trip; the spread's
// imbalance is written (max / mean) for readers and recomputed from min, median, max and mean.
TEST(ResultJson, ThreadPartsAndBalanceRoundTrip) {
  result::Run run = samples::sample_run();
  result::Region& r = run.regions[0];
  r.per_thread = {{0, 0, 2, 0.5, 800.0}, {0, 1, 2, std::nullopt, 2400.0}};
  r.flops_other_threads = 100.0;
  r.balance = result::Balance{2, std::nullopt, result::Spread{800, 1600, 2400, 1600}};
  const result::Run back = through_text(run);
  EXPECT_EQ(back.regions[0].per_thread, r.per_thread);
  EXPECT_EQ(back.regions[0].flops_other_threads, 100.0);
  EXPECT_EQ(back.regions[0].balance, r.balance);
  const auto doc = nlohmann::json::parse(result::to_json(run).dump());
  EXPECT_DOUBLE_EQ(doc["regions"][0]["balance"]["flops"]["imbalance"].get<double>(), 1.5);
  EXPECT_TRUE(doc["regions"][0]["per_thread"][1]["time_s"].is_null());
  EXPECT_FALSE(doc["regions"][1].contains("per_thread")) << "absent for a region of one thread";
}

// Region instances (the trace export's timeline): written, with the run's bound and the count
// left out, only when the run recorded them; read back exactly; absent members read as none.
TEST(ResultJson, InstancesRoundTripAndAreAbsentWhenNotRecorded) {
  result::Run run = samples::sample_run();
  const auto plain = nlohmann::json::parse(result::to_json(run).dump());
  EXPECT_FALSE(plain.contains("instances_per_thread"));
  EXPECT_FALSE(plain["regions"][0].contains("instances"));
  EXPECT_FALSE(plain["regions"][0].contains("instances_left_out"));
  EXPECT_EQ(through_text(run).instances_per_thread, std::nullopt);
  run.instances_per_thread = 256;
  result::Instance x;
  x.run = 1, x.process = 0, x.thread = 2, x.pid = 4242, x.tid = 4245;
  x.start_s = 0.25, x.end_s = 0.5, x.time_s = 0.24, x.depth = 1, x.closed_by = "longjmp", x.resumed = true;
  x.flops = 2000.0;
  x.bytes = {{"L1", Bytes{8000.0, std::nullopt}}};
  x.flops_other_threads = 10.0;
  result::Instance untimed = x;
  untimed.time_s = std::nullopt, untimed.flops = std::nullopt, untimed.bytes = {};
  untimed.flops_other_threads = std::nullopt;
  run.regions[0].instances = {x, untimed};
  run.regions[0].instances_left_out = 7;
  const result::Run back = through_text(run);
  EXPECT_EQ(back.instances_per_thread, 256u);
  EXPECT_EQ(back.regions[0].instances, run.regions[0].instances);
  EXPECT_EQ(back.regions[0].instances_left_out, 7u);
  const auto doc = nlohmann::json::parse(result::to_json(run).dump());
  EXPECT_TRUE(doc["regions"][0]["instances"][1]["flops"].is_null());
  EXPECT_TRUE(doc["regions"][1]["instances"].empty()) << "recorded, none: an empty list";
  auto bad = doc;
  bad["regions"][0]["instances"][0]["end_s"] = 0.1;
  EXPECT_THROW(from_json(bad), UserError);
}

// Why a region's calls are approximate (inlined copies interleaved with their callers' code)
// round-trips; the member is absent when the calls are exact.
TEST(ResultJson, CallsApproximateRoundTripsAndIsAbsentWhenExact) {
  result::Run run = samples::sample_run();
  run.regions[0].calls_approximate = {"poly inlined at f.c:3 in app: control comes back into its code at 2 places"};
  const result::Run back = through_text(run);
  EXPECT_EQ(back.regions[0].calls_approximate, run.regions[0].calls_approximate);
  const auto doc = nlohmann::json::parse(result::to_json(run).dump());
  EXPECT_EQ(doc["regions"][0]["calls_approximate"].size(), 1u);
  EXPECT_FALSE(doc["regions"][1].contains("calls_approximate"));
}

// An emulated run records the hierarchy it simulated; the last level says whether it was inclusive.
TEST(ResultJson, SimulatedCachesRoundTripWithEachLevelsInclusion) {
  result::Run run;
  run.backend = "emul";
  run.scope = "process";
  EXPECT_FALSE(to_json(run).contains("simulated_caches"));  // only when caches were simulated
  run.simulated_caches = {{"L1", 48 << 10, 12, 64, std::nullopt},
                          {"L2", 1 << 20, 16, 64, true},
                          {"L3", 32 << 20, 16, 64, false}};
  json j = to_json(run);
  ASSERT_EQ(j["simulated_caches"].size(), 3u);
  EXPECT_EQ(j["simulated_caches"][0],
            json::parse(R"({"name":"L1","size":49152,"ways":12,"line":64,"inclusive":null})"));
  EXPECT_EQ(j["simulated_caches"][2]["inclusive"], false);
  EXPECT_FALSE(j.contains("simulated_caches_source"));  // files older than the field do not say
  EXPECT_EQ(through_text(run), run);
  run.simulated_caches_source = "option";  // where the simulated geometry came from
  EXPECT_EQ(to_json(run)["simulated_caches_source"], "option");
  EXPECT_EQ(through_text(run), run);
}

// The smallest run a producer writes: every field at its default except the backend and the
// scope, which a result always names (the loader refuses a file without them).
TEST(ResultJson, RoundTripOfMinimalRun) {
  result::Run run;
  run.backend = "time";
  run.scope = "process";
  EXPECT_EQ(through_text(run), run);
}

TEST(ResultJson, UnknownIsNullNeverZero) {
  json j = to_json(samples::sample_run());
  EXPECT_TRUE(j["pid"].is_null());
  EXPECT_TRUE(j["exit_status"].is_null());
  EXPECT_EQ(j["term_signal"], 11);
  const json& span = j["regions"][1];
  EXPECT_TRUE(span["time_per_call_s"].is_null());
  EXPECT_TRUE(span["flops"].is_null());
  EXPECT_EQ(span["instructions"], 0.0);
  EXPECT_FALSE(span["instructions"].is_null());
  const json& dgemm = j["regions"][0];
  EXPECT_TRUE(dgemm["instructions"].is_null());
  EXPECT_EQ(dgemm["bytes"]["DRAM"]["read"], 1.25e8);
  EXPECT_TRUE(dgemm["bytes"]["DRAM"]["write"].is_null());
  EXPECT_TRUE(dgemm["bytes"]["L1"]["read"].is_null());
  result::Run no_cpus;
  EXPECT_TRUE(to_json(no_cpus)["host"]["logical_cpus"].is_null());
}

TEST(ResultJson, LayoutOfTopLevelAndRegion) {
  json j = to_json(samples::sample_run());
  EXPECT_EQ(j["schema"], kSchemaVersion);
  EXPECT_EQ(j["tool"], (json{{"name", "roofprof"}, {"version", "0.1.0"}}));
  for (const char* key :
       {"schema", "tool", "command", "pid", "exit_status", "term_signal", "complete", "backend",
        "scope", "repeat", "cache_state", "cache_evictions", "wall_time_s", "host", "events", "regions",
        "warnings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.size(), 17u);
  const json& r = j["regions"][0];
  EXPECT_EQ(
      r["time_per_call_s"],
      (json{
          {"min", 1e-9}, {"q1", 2.5e-6}, {"median", 3.14159e-3}, {"q3", 0.5}, {"max", 12345.678}}));
  EXPECT_EQ(r["locations"][0]["offset"], 0x1f2e30u);
  EXPECT_EQ(r["sources"]["flops"], "emul");
  EXPECT_EQ(r["closed_by"]["longjmp"], 3u);
}

TEST(ResultJson, NotCountedNaNIsWrittenAsNull) {
  result::Run run = samples::sample_run();
  run.regions[0].counters["page-faults"] = std::numeric_limits<double>::quiet_NaN();
  run.regions[0].flops = std::numeric_limits<double>::quiet_NaN();
  json j = to_json(run);
  EXPECT_TRUE(j["regions"][0]["counters"]["page-faults"].is_null());
  EXPECT_TRUE(j["regions"][0]["counters"]["cpu-migrations"].is_null());
  EXPECT_EQ(j["regions"][0]["counters"]["context-switches"], 7.0);
  EXPECT_TRUE(j["regions"][0]["flops"].is_null());
  EXPECT_EQ(from_json(j).regions[0].counters.at("page-faults"), std::nullopt);
}

// An emulated MPI rank times nothing: its region times and the run's wall time are null, and
// read back as unknown, not 0.
TEST(ResultJson, UntimedRunHasNullTimes) {
  result::Run run = samples::sample_run();
  run.wall_time_s = std::nullopt;
  run.regions[0].time_s = std::nullopt;
  run.regions[0].time_per_call_s = std::nullopt;
  json j = to_json(run);
  EXPECT_TRUE(j["wall_time_s"].is_null());
  EXPECT_TRUE(j["regions"][0]["time_s"].is_null());
  EXPECT_FALSE(j["regions"][1]["time_s"].is_null());
  result::Run back = from_json(j);
  EXPECT_EQ(back.wall_time_s, std::nullopt);
  EXPECT_EQ(back.regions[0].time_s, std::nullopt);
  EXPECT_EQ(back.regions[1].time_s, run.regions[1].time_s);
}

TEST(ResultJson, NonFiniteNumberIsAProducerBug) {
  result::Run run = samples::sample_run();
  run.regions[0].time_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(to_json(run), std::invalid_argument);
  run = samples::sample_run();
  run.regions[0].flops_by_class["dp_128"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(to_json(run), std::invalid_argument);
  run = samples::sample_run();
  run.regions[1].flops = std::numeric_limits<double>::infinity();
  EXPECT_THROW(to_json(run), std::invalid_argument);
}

std::string error_of(const json& j) {
  try {
    from_json(j);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ResultJsonRead, NewerSchemaIsRejected) {
  json j = to_json(samples::sample_run());
  j["schema"] = kSchemaVersion + 1;
  std::string msg = error_of(j);
  EXPECT_NE(msg.find("schema 2 is newer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("newer roofprof"), std::string::npos) << msg;
}

TEST(ResultJsonRead, NotAResult) {
  EXPECT_NE(error_of(json::array()).find("not a roofprof result"), std::string::npos);
  EXPECT_NE(error_of(json{{"regions", 1}}).find("not a roofprof result"), std::string::npos);
  EXPECT_NE(error_of(json{{"schema", "1"}}).find("schema: expected an integer, found a string"),
            std::string::npos);
  EXPECT_NE(error_of(json{{"schema", 0}}).find("schema version must be 1"), std::string::npos);
}

TEST(ResultJsonRead, ErrorsNameTheMember) {
  json j = to_json(samples::sample_run());
  j["regions"][1]["calls"] = -1;
  EXPECT_EQ(error_of(j),
            "regions[1].calls: expected a non-negative integer, found a negative integer");

  j = to_json(samples::sample_run());
  j["regions"][0]["time_per_call_s"].erase("q3");
  EXPECT_EQ(error_of(j), "regions[0].time_per_call_s: member \"q3\" is missing");

  j = to_json(samples::sample_run());
  j["regions"][0]["bytes"]["DRAM"]["read"] = "many";
  EXPECT_EQ(error_of(j), "regions[0].bytes.DRAM.read: expected a number or null, found a string");

  j = to_json(samples::sample_run());
  j["regions"][0]["counters"]["task-clock"] = "3";
  EXPECT_EQ(error_of(j),
            "regions[0].counters.task-clock: expected a number or null, found a string");

  j = to_json(samples::sample_run());
  j["host"]["logical_cpus"] = 2.5;
  EXPECT_EQ(error_of(j),
            "host.logical_cpus: expected an integer or null, found a fractional number");

  j = to_json(samples::sample_run());
  j.erase("warnings");
  EXPECT_EQ(error_of(j), "top level: member \"warnings\" is missing");

  j = to_json(samples::sample_run());
  j["repeat"] = 0;
  EXPECT_EQ(error_of(j), "repeat: expected 1 or more");

  j = to_json(samples::sample_run());
  j["exit_status"] = 1ll << 40;
  EXPECT_EQ(error_of(j), "exit_status: integer 1099511627776 is out of range");

  j = to_json(samples::sample_run());
  j["regions"][0]["time_per_call_s"]["min"] = 1e6;
  EXPECT_EQ(error_of(j), "regions[0].time_per_call_s: expected min <= q1 <= median <= q3 <= max");
}

TEST(ResultJsonRead, UnknownMembersAreIgnored) {
  json j = to_json(samples::sample_run());
  j["added_later"] = {{"x", 1}};
  j["regions"][0]["also_new"] = true;
  EXPECT_EQ(from_json(j), samples::sample_run());
}

}  // namespace
}  // namespace roofprof::result
