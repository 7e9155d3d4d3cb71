// The probe budget (--max-probe-slowdown) holds per thread as well as per run.
// Attached to a 4-thread program whose 3 workers call tick() back to back (a call is about a
// microsecond bare; its two ptrace stops take 50-100 us on the development VM, and the three
// workers queue for the one tracer: 100x and more), the run's average over 4 threads (an idle
// main thread among them) stayed under 10x and the workers ran 180x slower for as long as roofprof
// stayed attached. The workers' budget now stops the probes.
#include "harness.hpp"

namespace it {
namespace {

struct Attached {
  json doc;
  std::string err;
};

// Attaches to run_heartbeat with 3 workers calling tick() every `period_us`, waits until
// `until` holds for roofprof's stderr (or `wait` passes), then detaches (SIGINT).
template <class Until>
Attached attach_to_workers(Sandbox& sb, const std::string& period_us, Until until, std::chrono::milliseconds wait) {
  const fs::path beat = sb.path("beat");
  auto app = sb.start({fixture("run_heartbeat"), beat.string(), "3", period_us}, "app");
  EXPECT_TRUE(eventually([&] { return fs::exists(beat); }, 10s));
  auto prof = sb.start({roofprof_bin(), "run", "--backend", "time", "--pid", std::to_string(app->pid()), "--region",
                        "tick", "-o", "a.json"},
                       "roofprof");
  eventually([&] { return until(sb.captured("roofprof", "stderr")); }, wait);
  prof->signal(SIGINT);
  Status st = prof->finish(20s);
  Attached a;
  a.err = sb.captured("roofprof", "stderr");
  EXPECT_TRUE(st.exited && st.exit_code == 0) << describe(st) << "\n" << a.err;
  EXPECT_TRUE(app->running()) << "the program must survive the attach";
  if (fs::exists(sb.path("a.json"))) a.doc = json::parse(read_text(sb.path("a.json")));
  else ADD_FAILURE() << "no result\n" << a.err;
  return a;
}

TEST(ThreadBudget, BusyWorkersOfAnAttachedProgramStopTheProbes) {
  Sandbox sb;
  Attached a = attach_to_workers(
      sb, "0", [](const std::string& err) { return err.find("probing stopped") != std::string::npos; }, 30s);
  const json tick = region(a.doc, "tick");
  ASSERT_TRUE(tick.contains("probe_cost")) << tick.dump();
  EXPECT_TRUE(tick["probe_cost"]["stopped_at_s"].is_number()) << tick.dump() << "\n" << a.err;
  const std::string w = a.doc["warnings"].dump();
  EXPECT_NE(w.find("region 'tick': probing stopped"), std::string::npos) << w;
  EXPECT_NE(w.find("and would make thread "), std::string::npos) << "a worker's budget, not the run's\n" << w;
  EXPECT_NE(w.find(" more than 10x slower than without them"), std::string::npos) << w;
}

// Workers calling tick() every 10 ms: their stops are a percent of their time; no budget breaks.
TEST(ThreadBudget, SleepingWorkersKeepTheirProbes) {
  Sandbox sb;
  Attached a = attach_to_workers(
      sb, "10000", [](const std::string&) { return false; }, 1500ms);
  const json tick = region(a.doc, "tick");
  EXPECT_GT(calls(tick), 0);
  EXPECT_TRUE(!tick.contains("probe_cost") || tick["probe_cost"]["stopped_at_s"].is_null()) << tick.dump();
  EXPECT_EQ(a.doc["warnings"].dump().find("probing stopped"), std::string::npos) << a.doc["warnings"].dump();
}

}  // namespace
}  // namespace it
