// The result file: -o FILE, an existing file kept as FILE.old, the top-level members.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunResultFile, ExistingFileIsKeptAsOld) {
  Sandbox sb;
  write_text(sb.path("prof.json"), "previous result\n");
  auto r = sb.roofprof({"run", "-o", "prof.json", "--region", "recurse", "--", fixture("run_recursion")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  ASSERT_TRUE(fs::exists(sb.path("prof.json.old"))) << r.diag();
  EXPECT_EQ(read_text(sb.path("prof.json.old")), "previous result\n");
  json doc = load_result(r, "prof.json");
  EXPECT_EQ(calls(region(doc, "recurse")), 3);
  EXPECT_FALSE(fs::exists(sb.path("roofprof.json"))) << "-o ignored";
}

TEST(RunResultFile, DefaultNameAndTopLevelMembers) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "recurse", "--", fixture("run_recursion")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["exit_status"], 0);
  EXPECT_TRUE(doc["term_signal"].is_null());
  EXPECT_EQ(doc["complete"], true);
  EXPECT_TRUE(doc["backend"] == "perf" || doc["backend"] == "native" || doc["backend"] == "emul" ||
              doc["backend"] == "time")
      << doc["backend"];
  EXPECT_EQ(doc["scope"], "process");
  EXPECT_EQ(doc["command"], json::array({fixture("run_recursion")}));
  EXPECT_TRUE(doc["warnings"].is_array());
  json reg = region(doc, "recurse");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(reg["kind"], "function");
  EXPECT_TRUE(reg.contains("flops"));
  EXPECT_TRUE(reg["bytes"].is_object());
  for (const char* k : {"min", "q1", "median", "q3", "max"}) EXPECT_TRUE(reg["time_per_call_s"][k].is_number()) << k;
  EXPECT_LE(reg["time_per_call_s"]["min"].get<double>(), reg["time_per_call_s"]["max"].get<double>());
  // Every event of the run has a count (the emulation method's native run counts none by default).
  for (const auto& e : doc["events"]) EXPECT_GE(counter(reg, e.get<std::string>()), 0) << e;
  if (doc["backend"] != "emul" && doc["backend"] != "native") {  // those count no software events by default
    for (const char* e : {"task-clock", "page-faults", "context-switches"}) EXPECT_GE(counter(reg, e), 0) << e;
  }
}

TEST(RunResultFile, TimeBackendStillTimesRegions) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "recurse", "--", fixture("run_recursion")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["backend"], "time");
  json reg = region(doc, "recurse");
  EXPECT_EQ(calls(reg), 3);
  EXPECT_GT(time_s(reg), 0);
  EXPECT_TRUE(reg["flops"].is_null()) << "nothing measured flops: " << reg.dump();
}

}  // namespace
}  // namespace it
