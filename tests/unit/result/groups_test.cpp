// The optional per-region `groups` member, the GroupTable that builds it, and the quantile
// helpers behind both.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "common/error.hpp"
#include "result/group_table.hpp"
#include "result/quantiles.hpp"
#include "result/result.hpp"
#include "tests/unit/result/sample_run.hpp"

namespace roofprof::result {
namespace {

using nlohmann::json;

Group sample_group() {
  Group g;
  g.key = "m=200,n=200,k=200";
  g.params = {{"m", 200}, {"n", 200}, {"k", 200}};
  g.calls = 3;
  g.time_s = 0.03;
  g.time_per_call_s = Stats{0.009, 0.0095, 0.01, 0.0105, 0.011};
  g.counters = {{"task-clock", 3e7}, {"cycles", std::nullopt}};
  g.flops = 4.8e7;
  g.bytes = {{"DRAM", Bytes{9.6e5, std::nullopt}}};
  g.expected_work = 4.8e7;
  return g;
}

TEST(ResultGroups, RoundTrip) {
  result::Run run = samples::sample_run();
  run.regions[0].groups = {sample_group(), sample_group()};
  run.regions[0].groups[1].key = "m=1,n=1,k=1";
  run.regions[0].groups[1].expected_work = std::nullopt;
  run.regions[0].groups[1].time_per_call_s = std::nullopt;
  json j = to_json(run);
  EXPECT_EQ(j["regions"][0]["groups"][0]["key"], "m=200,n=200,k=200");
  EXPECT_EQ(j["regions"][0]["groups"][0]["params"]["k"], 200.0);
  EXPECT_TRUE(j["regions"][0]["groups"][0]["counters"]["cycles"].is_null());
  EXPECT_TRUE(j["regions"][0]["groups"][1]["expected_work"].is_null());
  EXPECT_EQ(from_json(json::parse(j.dump())), run);
}

// Groups by call path (run --group-by caller): `call_path` written only for them, read back.
TEST(ResultGroups, CallPathOnlyForGroupsByCaller) {
  result::Run run = samples::sample_run();
  Group by_caller = sample_group();
  by_caller.key = "<- solve (solver.c:120) <- main (main.c:33)";
  by_caller.params.clear();
  by_caller.expected_work = std::nullopt;
  by_caller.call_path = {"solve (solver.c:120)", "main (main.c:33)"};
  run.regions[0].groups = {by_caller, sample_group()};
  json j = to_json(run);
  EXPECT_EQ(j["regions"][0]["groups"][0]["call_path"], json::array({"solve (solver.c:120)", "main (main.c:33)"}));
  EXPECT_FALSE(j["regions"][0]["groups"][1].contains("call_path"));
  EXPECT_EQ(from_json(json::parse(j.dump())), run);
}

// run --annotate: a region's instructions with their counts, written only when present.
TEST(ResultAnnotation, RoundTripAndAbsentWithoutAnnotate) {
  result::Run run = samples::sample_run();
  EXPECT_FALSE(to_json(run)["regions"][0].contains("annotation"));
  AnnotatedInstruction a;
  a.module = "/bin/app";
  a.address = 0x1785;
  a.length = 6;
  a.executions = 500;
  a.flops = 4000;
  a.flops_by_class = {{"dp_256", 4000}};
  a.bytes_read = 16000;
  a.traffic = {{"L2", Bytes{8192.0, 0.0}}, {"DRAM", Bytes{0.0, 4096.0}}};
  AnnotatedInstruction b = a;
  b.address = 0x17bc;
  b.partial = true;
  b.flops = 0;
  b.flops_by_class.clear();
  run.regions[0].annotation = {a, b};
  json j = to_json(run);
  EXPECT_EQ(j["regions"][0]["annotation"][0]["address"], 0x1785);
  EXPECT_EQ(j["regions"][0]["annotation"][1]["partial"], true);
  EXPECT_EQ(j["regions"][0]["annotation"][0]["traffic"]["DRAM"]["write"], 4096.0);
  EXPECT_EQ(from_json(json::parse(j.dump())), run);
}

TEST(ResultGroups, AbsentWhenNotGroupedAndOptionalOnRead) {
  json j = to_json(samples::sample_run());
  EXPECT_FALSE(j["regions"][0].contains("groups"));
  EXPECT_TRUE(from_json(j).regions[0].groups.empty());
}

// The optional per-region `probe_cost` member (docs/result-schema.md): absent unless set, and
// read back exactly, a null stopped_at_s included.
TEST(ResultProbeCost, RoundTripAndAbsentWhenUnset) {
  result::Run run = samples::sample_run();
  EXPECT_FALSE(to_json(run)["regions"][0].contains("probe_cost"));
  EXPECT_FALSE(from_json(to_json(run)).regions[0].probe_cost);
  run.regions[0].probe_cost = result::ProbeCost{4754, 0.234, 0.202};
  run.regions[1].probe_cost = result::ProbeCost{40000, 1.93, std::nullopt};
  json j = to_json(run);
  EXPECT_EQ(j["regions"][0]["probe_cost"]["ptrace_stops"], 4754);
  EXPECT_EQ(j["regions"][0]["probe_cost"]["stopped_at_s"], 0.202);
  EXPECT_TRUE(j["regions"][1]["probe_cost"]["stopped_at_s"].is_null());
  EXPECT_EQ(from_json(json::parse(j.dump())), run);
  j["regions"][0]["probe_cost"].erase("estimated_s");
  EXPECT_THROW(from_json(j), UserError);
}

TEST(ResultAgentBoundary, RoundTripAndAbsentWhenUnset) {
  result::Run run = samples::sample_run();
  EXPECT_FALSE(to_json(run).contains("agent_boundary"));
  EXPECT_FALSE(from_json(to_json(run)).agent_boundary);
  run.agent_boundary = result::AgentBoundary{5e-8, 2.3e-7, 256};
  json j = to_json(run);
  EXPECT_EQ(j["agent_boundary"]["inside_s"], 5e-8);
  EXPECT_EQ(j["agent_boundary"]["per_call_s"], 2.3e-7);
  EXPECT_EQ(j["agent_boundary"]["calls"], 256);
  EXPECT_EQ(from_json(json::parse(j.dump())), run);
  j["agent_boundary"].erase("per_call_s");
  EXPECT_THROW(from_json(j), UserError);
}

TEST(ResultAgentReader, RoundTripAndAbsentWhenUnset) {
  result::Run run = samples::sample_run();
  EXPECT_FALSE(to_json(run).contains("agent_reader"));
  EXPECT_FALSE(from_json(to_json(run)).agent_reader);
  run.agent_reader = result::AgentReader{0.0123, 14, 3};
  json j = to_json(run);
  EXPECT_EQ(j["agent_reader"], json::parse(R"({"cpu_s": 0.0123, "sleeps": 14, "rings": 3})"));
  EXPECT_EQ(from_json(json::parse(j.dump())), run);
  j["agent_reader"].erase("cpu_s");
  EXPECT_THROW(from_json(j), UserError);
}

TEST(ResultGroups, MalformedGroupNamesTheMember) {
  result::Run run = samples::sample_run();
  run.regions[0].groups = {sample_group()};
  json j = to_json(run);
  j["regions"][0]["groups"][0].erase("expected_work");
  try {
    from_json(j);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "regions[0].groups[0]: member \"expected_work\" is missing");
  }
  j = to_json(run);
  j["regions"][0]["groups"] = json::object();
  EXPECT_THROW(from_json(j), UserError);
}

// read_file converts each region and group as the parser completes it (json_stream.cpp).
std::string write_temp(const std::string& text) {
  char name[] = "/tmp/roofprof-groups-XXXXXX";
  int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
  close(fd);
  return name;
}

std::string read_error(const std::string& text) {
  std::string path = write_temp(text);
  try {
    read_file(path);
  } catch (const UserError& e) {
    unlink(path.c_str());
    return e.what();
  }
  unlink(path.c_str());
  return "(no error)";
}

TEST(ResultGroups, FileReadRegionByRegionEqualsTheDocument) {
  result::Run run = samples::sample_run();
  run.regions[0].groups = {sample_group(), sample_group()};
  run.regions[0].groups[1].key = "m=1,n=1,k=1";
  run.regions[1].groups = {sample_group()};
  std::string path = write_temp(to_json(run).dump(1));
  EXPECT_EQ(read_file(path), run);
  unlink(path.c_str());
}

TEST(ResultGroups, FileErrorsNameRegionAndGroupAndSchemaComesFirst) {
  result::Run run = samples::sample_run();
  run.regions[1].groups = {sample_group(), sample_group()};
  json j = to_json(run);
  j["regions"][1]["groups"][1]["calls"] = "x";
  std::string msg = read_error(j.dump());
  EXPECT_NE(msg.find("regions[1].groups[1].calls: expected a non-negative integer"),
            std::string::npos)
      << msg;
  j["regions"][0]["calls"] = -1;
  msg = read_error(j.dump());
  EXPECT_NE(msg.find("regions[0].calls"), std::string::npos) << msg;
  j["schema"] = kSchemaVersion + 1;
  j.erase("tool");
  msg = read_error(j.dump());
  EXPECT_NE(msg.find("is newer than this roofprof"), std::string::npos) << msg;
  json bad = to_json(samples::sample_run());
  bad["regions"][0]["groups"] = json::object();
  msg = read_error(bad.dump());
  EXPECT_NE(msg.find("regions[0].groups: expected an array"), std::string::npos) << msg;
}

TEST(GroupTable, GroupsCallsByKeyWithExactStatistics) {
  GroupTable table({"task-clock", "cycles"});
  std::map<std::string, double> small{{"n", 10}}, big{{"n", 1000}};
  const double c1[] = {100, 1000}, c2[] = {200, NAN};
  for (int i = 1; i <= 5; ++i)
    table.add("n=10", small, 20.0, GroupCall{i * 1e-3, c1, 20.0, {{"L1", Bytes{160, 80}}}});
  table.add("n=1000", big, 2000.0, GroupCall{0.5, c2, std::nullopt, {}});
  std::vector<Group> g = table.groups();
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].key, "n=10");
  EXPECT_EQ(g[0].calls, 5u);
  EXPECT_NEAR(g[0].time_s, 0.015, 1e-15);
  EXPECT_EQ(g[0].time_per_call_s, (Stats{1e-3, 2e-3, 3e-3, 4e-3, 5e-3}));
  EXPECT_EQ(g[0].counters.at("task-clock"), 500.0);
  EXPECT_EQ(g[0].counters.at("cycles"), 5000.0);
  EXPECT_EQ(g[0].flops, 100.0);
  EXPECT_EQ(g[0].expected_work, 100.0);
  EXPECT_EQ(g[0].bytes.at("L1"), (Bytes{800, 400}));
  EXPECT_EQ(g[1].counters.at("cycles"), std::nullopt);  // one call not counted: unknown
  EXPECT_EQ(g[1].flops, std::nullopt);
  EXPECT_TRUE(g[1].bytes.empty());
  EXPECT_EQ(g[1].params, big);
}

TEST(GroupTable, ALevelMissingFromALaterCallBecomesUnknown) {
  GroupTable table({});
  table.add("k", {}, std::nullopt, GroupCall{1, {}, 1.0, {{"DRAM", Bytes{64, 0}}}});
  table.add("k", {}, std::nullopt, GroupCall{1, {}, 1.0, {}});
  auto g = table.groups();
  EXPECT_EQ(g[0].bytes.at("DRAM"), (Bytes{std::nullopt, std::nullopt}));
  EXPECT_EQ(g[0].expected_work, std::nullopt);
}

TEST(Quantiles, FiveNumbersType7) {
  std::vector<double> v{4, 1, 3, 2};
  EXPECT_EQ(five_numbers(v), (Stats{1, 1.75, 2.5, 3.25, 4}));
  std::vector<double> one{7};
  EXPECT_EQ(five_numbers(one), (Stats{7, 7, 7, 7, 7}));
  std::vector<double> none;
  EXPECT_EQ(five_numbers(none), std::nullopt);
}

TEST(Quantiles, MixOfOneIsItself) {
  Stats s{1, 2, 3, 4, 5};
  EXPECT_EQ(mix({{s, 10}}), s);
  EXPECT_EQ(mix({{s, 10}, {Stats{100, 100, 100, 100, 100}, 0}}), s);
  EXPECT_EQ(mix({}), std::nullopt);
}

TEST(Quantiles, MixOfTwoEqualHalves) {
  // Uniform on [0,1] and uniform on [2,3], equal weights: the median lies in the gap (at the
  // lower end of inf{x: F >= 1/2}), q1 = 0.5, q3 = 2.5.
  auto m = mix({{Stats{0, 0.25, 0.5, 0.75, 1}, 50}, {Stats{2, 2.25, 2.5, 2.75, 3}, 50}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->min, 0);
  EXPECT_EQ(m->max, 3);
  EXPECT_NEAR(m->q1, 0.5, 1e-9);
  EXPECT_NEAR(m->median, 1.0, 1e-9);
  EXPECT_NEAR(m->q3, 2.5, 1e-9);
  // Unequal weights pull the quartiles toward the heavier part.
  auto w = mix({{Stats{0, 0.25, 0.5, 0.75, 1}, 90}, {Stats{2, 2.25, 2.5, 2.75, 3}, 10}});
  EXPECT_NEAR(w->median, 0.5 / 0.9, 1e-9);
  EXPECT_LE(w->q3, 1.0);
}

}  // namespace
}  // namespace roofprof::result
