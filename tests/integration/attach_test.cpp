// --pid: attach to a running program, detach on SIGINT. roofprof exits 0 and writes what it
// measured (complete == false); the program keeps running normally and untraced afterwards.
#include <fstream>

#include "harness.hpp"

namespace it {
namespace {

long heartbeat(const fs::path& p) {
  std::ifstream in(p);
  long n = -1;
  in >> n;
  return in ? n : -1;
}

std::string status_field(const fs::path& status_file, const std::string& key) {
  std::ifstream in(status_file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) {
      auto v = line.substr(key.size() + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

// "" when every thread of `pid` is untraced and not stopped; else a description of one that is.
std::string traced_or_stopped_thread(pid_t pid) {
  fs::path tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& t : fs::directory_iterator(tasks, ec)) {
    std::string tracer = status_field(t.path() / "status", "TracerPid");
    std::string state = status_field(t.path() / "status", "State");
    if (tracer != "0" || state.rfind("t", 0) == 0 || state.rfind("T", 0) == 0)
      return "thread " + t.path().filename().string() + ": TracerPid " + tracer + ", State " + state;
  }
  return "";
}

size_t thread_count(pid_t pid) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec);
       it != fs::directory_iterator(); ++it)
    ++n;
  return n;
}

void attach_and_detach(int workers, std::chrono::milliseconds attached_for) {
  Sandbox sb;
  fs::path beat = sb.path("heartbeat");
  auto app = sb.start({fixture("run_heartbeat"), beat.string(), std::to_string(workers)}, "app");
  ASSERT_TRUE(eventually([&] { return heartbeat(beat) > 0; }, 5s)) << "fixture does not beat";
  ASSERT_EQ(thread_count(app->pid()), size_t(1 + workers));

  auto prof = sb.start({roofprof_bin(), "run", "--pid", std::to_string(app->pid()), "--region", "tick", "-o",
                        "attach.json"},
                       "roofprof");
  std::this_thread::sleep_for(attached_for);
  ASSERT_TRUE(prof->running()) << "roofprof ended before SIGINT: " << describe(prof->status())
                               << "\nstderr:\n" << sb.captured("roofprof", "stderr");
  prof->signal(SIGINT);
  Status st = prof->finish(15s);
  std::string err = sb.captured("roofprof", "stderr");
  EXPECT_TRUE(st.exited && st.exit_code == 0) << describe(st) << "\nstderr:\n" << err;

  // The program is alive, no thread traced or stopped, and it still beats.
  EXPECT_FALSE(app->wait_for(0ms)) << "the program died: " << describe(app->status()) << "\nstderr:\n" << err;
  ASSERT_TRUE(app->running());
  EXPECT_TRUE(eventually([&] { return traced_or_stopped_thread(app->pid()).empty(); }, 2s))
      << traced_or_stopped_thread(app->pid());
  EXPECT_EQ(thread_count(app->pid()), size_t(1 + workers));
  long before = heartbeat(beat);
  bool beating = eventually([&] { return heartbeat(beat) >= before + 50; }, 3s);
  EXPECT_TRUE(beating) << "heartbeat stuck at " << heartbeat(beat) << " (was " << before << ")";
  EXPECT_FALSE(app->wait_for(0ms)) << "the program died after detach: " << describe(app->status());
  app->signal(SIGKILL);
  app->finish(5s);

  fs::path out = sb.path("attach.json");
  ASSERT_TRUE(fs::exists(out)) << "no result written\nstderr:\n" << err;
  json doc = json::parse(read_text(out));
  EXPECT_EQ(doc["complete"], false) << doc.dump(1);
  EXPECT_EQ(doc["pid"], app->pid()) << doc.dump(1);
  json reg = region(doc, "tick");
  ASSERT_FALSE(reg.is_null());
  EXPECT_GT(calls(reg), 0) << reg.dump();
  EXPECT_LT(calls(reg), 2000) << reg.dump();
  EXPECT_EQ(threads(reg), 1 + workers) << "every thread calls tick: " << reg.dump();
  // Attached, the calls are measured by breakpoints: what their stops add to each call is said,
  // from the stops counted and the cost of a stop measured on this machine.
  ASSERT_TRUE(reg["probe_cost"].is_object()) << reg.dump();
  EXPECT_GE(reg["probe_cost"]["ptrace_stops"].get<double>(), 2.0 * calls(reg)) << reg.dump();
  EXPECT_GT(reg["probe_cost"]["estimated_s"].get<double>(), 0) << reg.dump();
  const std::string warnings = doc["warnings"].dump();
  EXPECT_NE(warnings.find("region 'tick': attached (--pid), so its calls are measured by breakpoints: "),
            std::string::npos)
      << warnings;
  EXPECT_NE(err.find("of probe overhead"), std::string::npos) << "the summary says it too\n" << err;
}

TEST(RunAttach, AttachThenDetachOnSigint) { attach_and_detach(0, 1000ms); }
// Threads that exist before the attach are followed too (and all are released on detach).
TEST(RunAttach, AttachToThreadedProgram) { attach_and_detach(2, 700ms); }

// Fault suite (detaching): 4 workers call the region every 100 us, so at Ctrl-C some
// thread nearly always has a breakpoint's or a single step's SIGTRAP queued behind our
// PTRACE_INTERRUPT stop. Before the detach drained those traps, the program died of SIGTRAP in
// about 1 of 10 cycles; here 12 cycles on one program must leave it alive and beating.
TEST(RunAttach, RepeatedDetachFromBusyThreadsHarmsNothing) {
  Sandbox sb;
  fs::path beat = sb.path("heartbeat");
  const int workers = 4;
  auto app = sb.start({fixture("run_heartbeat"), beat.string(), std::to_string(workers), "100"}, "app");
  ASSERT_TRUE(eventually([&] { return heartbeat(beat) > 0; }, 5s)) << "fixture does not beat";
  for (int cycle = 0; cycle < 12; ++cycle) {
    std::string out = "cycle" + std::to_string(cycle) + ".json";
    auto prof = sb.start({roofprof_bin(), "run", "--backend", "time", "--pid", std::to_string(app->pid()), "--region",
                          "tick", "-o", out},
                         "roofprof" + std::to_string(cycle));
    // Until the probes are in (the result shows calls), then a little longer.
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + 20 * cycle));
    prof->signal(SIGINT);
    Status st = prof->finish(15s);
    std::string err = sb.captured("roofprof" + std::to_string(cycle), "stderr");
    ASSERT_TRUE(st.exited && st.exit_code == 0) << "cycle " << cycle << ": " << describe(st) << "\n" << err;
    ASSERT_FALSE(app->wait_for(20ms)) << "cycle " << cycle << ": the program died: " << describe(app->status());
    ASSERT_TRUE(eventually([&] { return traced_or_stopped_thread(app->pid()).empty(); }, 2s))
        << "cycle " << cycle << ": " << traced_or_stopped_thread(app->pid());
  }
  long before = heartbeat(beat);
  EXPECT_TRUE(eventually([&] { return heartbeat(beat) >= before + 25; }, 3s)) << "heartbeat stuck";
  EXPECT_FALSE(app->wait_for(100ms)) << "the program died after detach: " << describe(app->status());
}

// Fault suite (detaching): a process stopped by SIGSTOP stays stopped while roofprof is
// attached and after it detaches; SIGCONT then resumes it.
TEST(RunAttach, StoppedProcessStaysStopped) {
  Sandbox sb;
  fs::path beat = sb.path("heartbeat");
  auto app = sb.start({fixture("run_heartbeat"), beat.string(), "1"}, "app");
  ASSERT_TRUE(eventually([&] { return heartbeat(beat) > 0; }, 5s)) << "fixture does not beat";
  app->signal(SIGSTOP);
  auto all_stopped = [&] {
    std::error_code ec;
    for (const auto& t : fs::directory_iterator("/proc/" + std::to_string(app->pid()) + "/task", ec)) {
      std::string state = status_field(t.path() / "status", "State");
      if (state.rfind("T", 0) != 0 && state.rfind("t", 0) != 0) return false;
    }
    return true;
  };
  ASSERT_TRUE(eventually(all_stopped, 2s));
  std::this_thread::sleep_for(100ms);
  long stopped_at = heartbeat(beat);
  auto prof = sb.start({roofprof_bin(), "run", "--backend", "time", "--pid", std::to_string(app->pid()), "--region",
                        "tick", "-o", "stopped.json"},
                       "roofprof");
  std::this_thread::sleep_for(600ms);
  EXPECT_EQ(heartbeat(beat), stopped_at) << "attaching resumed a stopped program";
  prof->signal(SIGINT);
  Status st = prof->finish(15s);
  EXPECT_TRUE(st.exited && st.exit_code == 0) << describe(st) << "\n" << sb.captured("roofprof", "stderr");
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(heartbeat(beat), stopped_at) << "detaching resumed a stopped program";
  for (const auto& t : fs::directory_iterator("/proc/" + std::to_string(app->pid()) + "/task"))
    EXPECT_EQ(status_field(t.path() / "status", "TracerPid"), "0") << t.path();
  EXPECT_TRUE(all_stopped()) << "a thread runs after detach";
  app->signal(SIGCONT);
  EXPECT_TRUE(eventually([&] { return heartbeat(beat) >= stopped_at + 25; }, 3s)) << "no beat after SIGCONT";
  EXPECT_FALSE(app->wait_for(0ms)) << describe(app->status());
}

}  // namespace
}  // namespace it
