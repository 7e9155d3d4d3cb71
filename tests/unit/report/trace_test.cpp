// report --trace: region instances as Chrome trace events (report/trace.hpp).
#include "report/trace.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "tests/unit/report/sample_runs.hpp"

namespace roofprof::report {
namespace {

using nlohmann::ordered_json;

result::Instance instance(int thread, int tid, double start_s, double end_s, std::optional<double> flops) {
  result::Instance x;
  x.thread = thread, x.pid = 100, x.tid = tid;
  x.start_s = start_s, x.end_s = end_s, x.time_s = end_s - start_s;
  x.closed_by = "return";
  x.flops = flops;
  return x;
}

// Two threads in `kernel` at once (scope=process): the first one's instance holds the others'
// work (its flops_other_threads); a third instance later on thread 0, its W unknown.
result::Run two_threads() {
  result::Run run = samples::typical();
  run.regions = {samples::region("kernel", "function", 3, 0.0)};
  run.instances_per_thread = 256;
  result::Instance a = instance(0, 101, 1e-6, 5e-6, 4000.0);
  a.flops_other_threads = 500.0;
  a.bytes = {{"L1", result::Bytes{16000.0, 8000.0}}, {"DRAM", result::Bytes{std::nullopt, std::nullopt}}};
  result::Instance b = instance(1, 102, 2e-6, 6e-6, 3000.0);
  result::Instance c = instance(0, 101, 10e-6, 12e-6, std::nullopt);
  run.regions[0].instances = {a, c, b};
  return run;
}

std::vector<ordered_json> events(const ordered_json& trace, const char* ph, int tid = -1) {
  std::vector<ordered_json> out;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == ph && (tid < 0 || e["tid"] == tid)) out.push_back(e);
  return out;
}

TEST(ChromeTrace, OneCompleteEventPerInstanceWithItsQuantities) {
  const std::vector<Input> in{{"r.json", two_threads()}};
  const ordered_json t = chrome_trace(in);
  auto on_101 = events(t, "X", 101);
  ASSERT_EQ(on_101.size(), 2u);
  const ordered_json& a = on_101[0];
  EXPECT_EQ(a["name"], "kernel");
  EXPECT_EQ(a["cat"], "function");
  EXPECT_EQ(a["pid"], 100);
  EXPECT_DOUBLE_EQ(a["ts"].get<double>(), 1.0);  // microseconds
  EXPECT_DOUBLE_EQ(a["dur"].get<double>(), 4.0);
  EXPECT_EQ(a["args"]["W"], 4000.0);
  EXPECT_DOUBLE_EQ(a["args"]["T"].get<double>(), 4e-6);
  EXPECT_DOUBLE_EQ(a["args"]["P"].get<double>(), 4000.0 / 4e-6);
  EXPECT_EQ(a["args"]["Q"], (ordered_json{{"L1", {{"read", 16000.0}, {"write", 8000.0}}}}))
      << "DRAM unknown: left out";
  EXPECT_EQ(a["args"]["W_other_threads"], 500.0);
  EXPECT_EQ(a["args"]["calls"], 1);
  const ordered_json& c = on_101[1];
  EXPECT_FALSE(c["args"].contains("W")) << "unknown W is left out, never 0";
  EXPECT_FALSE(c["args"].contains("P"));
  EXPECT_EQ(events(t, "X", 102).size(), 1u);
}

// The process's track (tid 0): the instances that overlap are one interval, with every
// thread's work in it (their own W and the others' W the first one holds).
TEST(ChromeTrace, ProcessIntervalsJoinOverlappingInstancesOfTheRegion) {
  const ordered_json t = chrome_trace({{"r.json", two_threads()}});
  auto process = events(t, "X", 0);
  ASSERT_EQ(process.size(), 2u);
  EXPECT_DOUBLE_EQ(process[0]["ts"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(process[0]["dur"].get<double>(), 5.0);
  EXPECT_EQ(process[0]["args"]["W"], 4000.0 + 500.0 + 3000.0);
  EXPECT_EQ(process[0]["args"]["calls"], 2);
  EXPECT_EQ(process[0]["args"]["threads"], 2);
  EXPECT_FALSE(process[1]["args"].contains("W"));
  result::Run thread_scope = two_threads();
  thread_scope.scope = "thread";
  EXPECT_TRUE(events(chrome_trace({{"r.json", thread_scope}}), "X", 0).empty());
}

TEST(ChromeTrace, MetadataNamesTheProcessAndEveryThread) {
  const ordered_json t = chrome_trace({{"r.json", two_threads()}});
  std::map<int, std::string> threads;
  int processes = 0;
  for (const auto& m : events(t, "M")) {
    if (m["name"] == "process_name") ++processes;
    if (m["name"] == "thread_name") threads[m["tid"].get<int>()] = m["args"]["name"].get<std::string>();
  }
  EXPECT_EQ(processes, 1);
  EXPECT_EQ(threads.at(101), "thread 0.0 (tid 101)");
  EXPECT_EQ(threads.at(102), "thread 0.1 (tid 102)");
  EXPECT_EQ(threads.at(0), "process: regions open on any thread");
}

// The instances left out by the bound are counted in otherData; the process intervals stop
// where a thread's kept instances end (later instances of other threads may be missing).
TEST(ChromeTrace, InstancesLeftOutAreCountedAndCutTheProcessIntervals) {
  result::Run run = two_threads();
  run.instances_per_thread = 2;  // both threads reached it: thread 0 kept up to 12 us, thread 1 up to 8 us
  run.regions[0].instances.push_back(instance(1, 102, 7e-6, 8e-6, 10.0));
  run.regions[0].instances_left_out = 40;
  const std::vector<Input> in{{"r.json", run}};
  const ordered_json t = chrome_trace(in);
  EXPECT_EQ(t["otherData"]["instances_left_out"]["kernel"], 40);
  EXPECT_EQ(instances_left_out(in), 40u);
  auto process = events(t, "X", 0);
  ASSERT_EQ(process.size(), 2u) << "the interval after 8 us is dropped: thread 1's instances there were left out";
  EXPECT_DOUBLE_EQ(process[1]["ts"].get<double>(), 7.0);
  EXPECT_EQ(events(t, "X", 101).size() + events(t, "X", 102).size(), 4u) << "every kept instance is on its thread";
}

TEST(ChromeTrace, AFileWithoutInstancesIsRefused) {
  result::Run old = samples::typical();  // instances_per_thread null: written before they were recorded
  try {
    chrome_trace({{"old.json", old}});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("old.json: the result has no region instances"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace roofprof::report
