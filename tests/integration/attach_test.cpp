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

std::string proc_status_field(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) {
      auto v = line.substr(key.size() + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

TEST(RunAttach, AttachThenDetachOnSigint) {
  Sandbox sb;
  fs::path beat = sb.path("heartbeat");
  auto app = sb.start({fixture("run_heartbeat"), beat.string()}, "app");
  ASSERT_TRUE(eventually([&] { return heartbeat(beat) > 0; }, 5s)) << "fixture does not beat";

  auto prof = sb.start({roofprof_bin(), "run", "--pid", std::to_string(app->pid()), "--region", "tick", "-o",
                        "attach.json"},
                       "roofprof");
  std::this_thread::sleep_for(1s);
  ASSERT_TRUE(prof->running()) << "roofprof ended before SIGINT: " << describe(prof->status())
                               << "\nstderr:\n" << sb.captured("roofprof", "stderr");
  prof->signal(SIGINT);
  Status st = prof->finish(15s);
  std::string err = sb.captured("roofprof", "stderr");
  EXPECT_TRUE(st.exited && st.exit_code == 0) << describe(st) << "\nstderr:\n" << err;

  // The program is alive, no longer traced, not stopped, and still beating.
  ASSERT_TRUE(app->running());
  EXPECT_FALSE(app->wait_for(0ms)) << "the program died: " << describe(app->status());
  EXPECT_TRUE(eventually([&] { return proc_status_field(app->pid(), "TracerPid") == "0"; }, 2s))
      << "TracerPid: " << proc_status_field(app->pid(), "TracerPid");
  long before = heartbeat(beat);
  bool beating = eventually([&] { return heartbeat(beat) >= before + 50; }, 3s);
  EXPECT_TRUE(beating) << "heartbeat stuck at " << heartbeat(beat) << " (was " << before
                       << "), State: " << proc_status_field(app->pid(), "State");
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
}

}  // namespace
}  // namespace it
