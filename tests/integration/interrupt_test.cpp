// SIGINT / SIGTERM to roofprof while it runs a program it launched: roofprof stops, still writes
// what it measured (complete == false), and does not leave the program behind (stopped or
// traced).
#include <fstream>

#include "harness.hpp"

namespace it {
namespace {

struct Beat {
  long n = -1;
  int pid = 0;
};

Beat read_beat(const fs::path& p) {
  std::ifstream in(p);
  Beat b;
  in >> b.n >> b.pid;
  return in ? b : Beat{};
}

bool alive_and_not_zombie(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// `combined`: run --preload, where rename (libc, called through the PLT every 25 ticks, never
// from inside libc) is measured by the in-process agent and tick (in the executable) by a
// breakpoint: both keep what they measured.
void interrupt_launched(int sig, bool combined = false) {
  Sandbox sb;
  fs::path beat = sb.path("heartbeat");
  std::vector<std::string> args{roofprof_bin(), "run", "--backend", "time", "--region", "tick", "-o", "int.json"};
  if (combined) args.insert(args.end(), {"--preload", "--region", "rename"});
  args.insert(args.end(), {"--", fixture("run_heartbeat"), beat.string()});
  auto prof = sb.start(args, "roofprof");
  ASSERT_TRUE(eventually([&] { return read_beat(beat).n > 0; }, 10s))
      << "the program does not beat under roofprof\nstderr:\n" << sb.captured("roofprof", "stderr");
  int app_pid = read_beat(beat).pid;
  ASSERT_GT(app_pid, 0);
  std::this_thread::sleep_for(300ms);
  ASSERT_TRUE(prof->running()) << describe(prof->status()) << "\nstderr:\n" << sb.captured("roofprof", "stderr");
  prof->signal(sig);
  Status st = prof->finish(15s);
  std::string err = sb.captured("roofprof", "stderr");
  EXPECT_FALSE(st.timed_out) << "roofprof did not stop on signal " << sig << "\nstderr:\n" << err;
  EXPECT_TRUE(eventually([&] { return !alive_and_not_zombie(app_pid); }, 2s))
      << "the launched program (pid " << app_pid << ") is still there after roofprof ended";
  ::kill(app_pid, SIGKILL);

  fs::path out = sb.path("int.json");
  ASSERT_TRUE(fs::exists(out)) << "no result written; " << describe(st) << "\nstderr:\n" << err;
  json doc = json::parse(read_text(out));
  EXPECT_EQ(doc["complete"], false) << doc.dump(1);
  json reg = region(doc, "tick");
  ASSERT_FALSE(reg.is_null());
  EXPECT_GT(calls(reg), 0) << reg.dump();
  if (combined) {
    EXPECT_EQ(reg["sources"]["calls"], "breakpoint") << reg.dump();
    json ren = region(doc, "rename");
    ASSERT_FALSE(ren.is_null()) << doc.dump(1);
    EXPECT_EQ(ren["sources"]["calls"], "agent") << ren.dump();
    EXPECT_GT(calls(ren), 0) << ren.dump();  // the heartbeat file was written
    EXPECT_LE(std::abs(calls(ren) - calls(reg) / 25), 1) << doc.dump(1);  // one rename per 25 ticks
  }
}

TEST(RunInterrupt, SigintWhileRunningALaunchedProgram) { interrupt_launched(SIGINT); }
TEST(RunInterrupt, SigintInTheCombinedMode) { interrupt_launched(SIGINT, true); }
TEST(RunInterrupt, SigtermWhileRunningALaunchedProgram) { interrupt_launched(SIGTERM); }

// A signal sent to the program from outside reaches it as it would without roofprof: SIGTERM
// kills it, roofprof reports that and exits 128+15; the run itself was not interrupted.
TEST(RunInterrupt, SigtermToTheProgramFromOutside) {
  Sandbox sb;
  fs::path beat = sb.path("heartbeat");
  auto prof = sb.start({roofprof_bin(), "run", "--backend", "time", "--region", "tick", "-o", "term.json", "--",
                        fixture("run_heartbeat"), beat.string()},
                       "roofprof");
  ASSERT_TRUE(eventually([&] { return read_beat(beat).n > 0; }, 10s))
      << "the program does not beat under roofprof\nstderr:\n" << sb.captured("roofprof", "stderr");
  int app_pid = read_beat(beat).pid;
  ASSERT_GT(app_pid, 0);
  ::kill(app_pid, SIGTERM);
  Status st = prof->finish(15s);
  std::string err = sb.captured("roofprof", "stderr");
  EXPECT_TRUE(st.exited && st.exit_code == 143) << describe(st) << "\nstderr:\n" << err;
  fs::path out = sb.path("term.json");
  ASSERT_TRUE(fs::exists(out)) << "no result written\nstderr:\n" << err;
  json doc = json::parse(read_text(out));
  EXPECT_EQ(doc["term_signal"], 15) << doc.dump(1);
  EXPECT_EQ(doc["complete"], true) << doc.dump(1);
  EXPECT_GT(calls(region(doc, "tick")), 0);
}

}  // namespace
}  // namespace it
