// SIGINT / SIGTERM to roofprof while it runs a program it launched: roofprof stops, still writes
// what it measured (complete == false), and does not leave the program behind (stopped or
// traced).
#include <fcntl.h>

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
    EXPECT_EQ(reg["sources"]["calls"], "patch") << reg.dump();
    json ren = region(doc, "rename");
    ASSERT_FALSE(ren.is_null()) << doc.dump(1);
    EXPECT_EQ(ren["sources"]["calls"], "patch") << ren.dump();
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

// ---- one policy for every signal that would end roofprof, in every phase
// (supervisor/signals.hpp): keep what was measured, mark the result incomplete, write it,
// remove temporary files, end within 2 s. A SIGPIPE from roofprof's own write to a closed
// stderr is not one of them.

// Sends `sig` and waits for roofprof; elapsed_s counts from the signal.
Status signal_and_finish(Child& prof, int sig) {
  auto t0 = std::chrono::steady_clock::now();
  prof.signal(sig);
  Status st = prof.finish(10s);
  st.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

bool agent_dirs_left(const fs::path& tmp) {
  for (const auto& e : fs::directory_iterator(tmp))
    if (e.path().filename().string().rfind("roofprof-agent-", 0) == 0) return true;
  return false;
}

class SignalToRoofprof : public ::testing::TestWithParam<int> {};

// The combined mode (the default: the agent's record directory exists) on a program that
// runs until stopped.
TEST_P(SignalToRoofprof, NativeRunKeepsWhatWasMeasured) {
  int sig = GetParam();
  Sandbox sb;
  fs::path tmp = sb.path("tmp");
  fs::create_directories(tmp);
  fs::path beat = sb.path("heartbeat");
  RunOptions ro;
  ro.env["TMPDIR"] = tmp.string();
  auto prof = sb.start({roofprof_bin(), "run", "--backend", "time", "--region", "tick", "--region", "rename", "-o",
                        "sig.json", "--", fixture("run_heartbeat"), beat.string()},
                       "roofprof", ro);
  ASSERT_TRUE(eventually([&] { return read_beat(beat).n > 0; }, 10s)) << sb.captured("roofprof", "stderr");
  ASSERT_TRUE(agent_dirs_left(tmp)) << "the combined mode has no record directory";
  Status st = signal_and_finish(*prof, sig);
  std::string err = sb.captured("roofprof", "stderr");
  ASSERT_FALSE(st.timed_out) << err;
  EXPECT_LT(st.elapsed_s, 2.0) << "seconds from the signal to roofprof's end\n" << err;
  EXPECT_TRUE(st.exited) << describe(st) << "\n" << err;  // roofprof ended itself, not killed by the signal
  ASSERT_TRUE(fs::exists(sb.path("sig.json"))) << describe(st) << "\n" << err;
  json doc = json::parse(read_text(sb.path("sig.json")));
  EXPECT_EQ(doc["complete"], false) << doc.dump(1);
  EXPECT_GT(calls(region(doc, "tick")), 0);
  EXPECT_FALSE(agent_dirs_left(tmp)) << "the agent's record directory was left in " << tmp;
}

INSTANTIATE_TEST_SUITE_P(EverySignal, SignalToRoofprof,
                         ::testing::Values(SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(sigabbrev_np(i.param)); });

// Starts roofprof with `args`, sends `sig` once its emulated run has run 0.5 s, and checks
// that roofprof ended within 2 s with 128 + sig and wrote `result`, incomplete; `doc` gets it.
void signal_during_emulated_run(const std::vector<std::string>& args, int sig, const std::string& result, json& doc) {
  Sandbox sb;
  auto prof = sb.start(args, "roofprof");
  ASSERT_TRUE(eventually([&] { return sb.captured("roofprof", "stderr").find("emulated run") != std::string::npos; },
                         60s))
      << sb.captured("roofprof", "stderr");
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(prof->running()) << "the emulated run ended before the signal";
  Status st = signal_and_finish(*prof, sig);
  std::string err = sb.captured("roofprof", "stderr");
  ASSERT_FALSE(st.timed_out) << err;
  EXPECT_LT(st.elapsed_s, 2.0) << "seconds from the signal to roofprof's end\n" << err;
  EXPECT_TRUE(st.exited && st.exit_code == 128 + sig) << describe(st) << "\n" << err;
  ASSERT_TRUE(fs::exists(sb.path(result))) << err;
  doc = json::parse(read_text(sb.path(result)));
  EXPECT_EQ(doc["complete"], false) << doc.dump(1);
}

// SIGINT / SIGTERM while the program runs again under valgrind: roofprof ends within 2 s with
// complete == false and no flops (part of the program is not the program), never
// complete == true with partial W.
class SignalDuringEmulation : public ::testing::TestWithParam<int> {};

TEST_P(SignalDuringEmulation, ResultIsIncompleteWithoutPartialWork) {
  json doc;
  // 60M iterations: a fraction of a second natively, far longer emulated.
  ASSERT_NO_FATAL_FAILURE(signal_during_emulated_run({roofprof_bin(), "run", "--backend", "emul", "--no-cache-sim",
                                                      "--region", "work", "-o", "emul.json", "--",
                                                      fixture("run_split_app"), "20000000"},
                                                     GetParam(), "emul.json", doc));
  json reg = region(doc, "work");
  EXPECT_EQ(calls(reg), 3) << reg.dump();  // the native run was whole
  EXPECT_TRUE(!reg.contains("flops") || reg["flops"].is_null()) << reg.dump();
}

INSTANTIATE_TEST_SUITE_P(IntTerm, SignalDuringEmulation, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(sigabbrev_np(i.param)); });

// The survey's emulated pass is run's (run/emulated_pass.hpp): a signal during it keeps the
// sampled survey, with no W (part of the program is not the program), and roofprof exits with
// 128 + the signal, as run does.
TEST(SurveyEmulInterrupt, SigintKeepsTheSampledSurveyWithoutPartialWork) {
  json doc;
  // K = 60: 0.12 to 0.5 s natively (Survey.RanksThreeKernelsByTime), far longer emulated.
  ASSERT_NO_FATAL_FAILURE(signal_during_emulated_run({roofprof_bin(), "survey", "--backend", "emul", "--no-cache-sim",
                                                      "-o", "s.json", "--", fixture("run_three_kernels"), "60"},
                                                     SIGINT, "s.json", doc));
  EXPECT_NE(doc["warnings"].dump().find("the emulated run was interrupted: flops and bytes were not measured (null)"),
            std::string::npos)
      << doc["warnings"].dump(1);
  bool big = false;
  for (const auto& f : doc["survey"]["functions"]) {
    if (f["name"] != "kernel_big") continue;
    big = true;
    EXPECT_GT(f["self_samples"].get<double>(), 0) << f.dump();  // sampled before the emulated run
    EXPECT_TRUE(f["self_flops"].is_null()) << f.dump();
  }
  EXPECT_TRUE(big) << doc["survey"].dump(1);
}

// `roofprof ... 2>&1 | head -0`: roofprof's stderr is a pipe nobody reads. Its notes are lost,
// the run is not: the exit status is the program's (0), never 141 (SIGPIPE).
TEST(ClosedStderr, ExitStatusIsTheProgramsNot141) {
  Sandbox sb;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  std::string bin = roofprof_bin(), app = fixture("run_split_app"), cwd = sb.work().string();
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGPIPE, SIG_DFL);
    if (::chdir(cwd.c_str()) != 0) _exit(126);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(fds[1], 2);
    ::execl(bin.c_str(), bin.c_str(), "run", "--backend", "time", "--region", "work", "--", app.c_str(), "1000",
            (char*)nullptr);
    _exit(127);
  }
  ::close(fds[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                              : "exit " + std::to_string(WEXITSTATUS(status)));
  ASSERT_TRUE(fs::exists(sb.path("roofprof.json")));
  json doc = json::parse(read_text(sb.path("roofprof.json")));
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(calls(region(doc, "work")), 3);
}

}  // namespace
}  // namespace it
