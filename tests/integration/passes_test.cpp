// A signal in the first 100 ms is never lost nor kills roofprof by its default action, in every
// backend; a pass that dies partway (valgrind's thread limit, a seccomp filter, a signal between
// the passes) makes the result incomplete with W and Q null and the reason on each region; a killed
// emulated pass leaves nothing in $TMPDIR and its children see none of valgrind's variables; the
// emulated pass covers the processes the native one does.
#include <set>

#include "harness.hpp"

namespace it {
namespace {

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

bool has_warning(const json& doc, const std::string& part) {
  for (const auto& w : doc["warnings"])
    if (w.get<std::string>().find(part) != std::string::npos) return true;
  return false;
}

bool null_or_absent(const json& reg, const std::string& key) { return !reg.contains(key) || reg[key].is_null(); }

// --- A signal at 10, 30, 60 and 100 ms after launching roofprof run -------------------------

struct Sweep {
  std::string backend;
  std::string region;
  std::vector<std::string> program;  // runs until signalled (its native run at least)
};

// Whatever phase the signal lands in (before roofprof's own code, before the program, while it
// runs, between the passes, during the emulated pass), roofprof ends within seconds with
// 128 + the signal as a shell gives it, never by the signal's default action once its own code
// runs, and a result it wrote reads back as incomplete with no partial W. Before roofprof's first
// instruction (the dynamic loader, about a millisecond) the default action is the only one there
// is: then nothing was started and nothing is left.
void sweep(const Sweep& s, int sig) {
  for (int ms : {10, 30, 60, 100}) {
    SCOPED_TRACE(s.backend + " " + sigabbrev_np(sig) + " at " + std::to_string(ms) + " ms");
    Sandbox sb;
    const fs::path tmp = sb.path("tmp");
    fs::create_directories(tmp);
    RunOptions ro;
    ro.env["TMPDIR"] = tmp.string();
    std::vector<std::string> argv{roofprof_bin(), "run", "--backend", s.backend, "-r", s.region, "-o", "sig.json",
                                  "--"};
    argv.insert(argv.end(), s.program.begin(), s.program.end());
    auto prof = sb.start(argv, "roofprof", ro);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    prof->signal(sig);
    Status st = prof->finish(20s);
    const std::string err = sb.captured("roofprof", "stderr");
    ASSERT_FALSE(st.timed_out) << err;
    const bool wrote = fs::exists(sb.path("sig.json"));
    if (!st.exited) {
      EXPECT_EQ(st.term_signal, sig) << describe(st) << "\n" << err;
      EXPECT_FALSE(wrote) << "killed by the signal after writing a result\n" << err;
      EXPECT_EQ(err, "") << "roofprof's own code ran without handlers";
    } else {
      EXPECT_EQ(st.exit_code, 128 + sig) << err;
    }
    if (wrote) {
      json doc = json::parse(read_text(sb.path("sig.json")));
      EXPECT_EQ(doc["complete"], false) << doc.dump(1);
      EXPECT_GE(calls(region(doc, s.region)), 0);
      // No W from a partial emulated run (native counting's W is of the calls it measured).
      if (s.backend == "emul") {
        for (const auto& reg : doc["regions"]) EXPECT_TRUE(null_or_absent(reg, "flops")) << reg.dump();
      }
    } else if (st.exited) {
      EXPECT_NE(err.find("before the program started: nothing was measured, no result written"), std::string::npos)
          << err;
    }
    EXPECT_EQ(files_in(tmp), std::vector<std::string>{}) << "left in TMPDIR";
    std::set<std::string> want{"tmp"};
    if (wrote) want.insert("sig.json");
    std::set<std::string> work;  // the program's heartbeat files are its own
    for (const auto& name : files_in(sb.work()))
      if (name.rfind("beat", 0) != 0) work.insert(name);
    EXPECT_EQ(work, want)
        << "no temporary result left";
  }
}

// The heartbeat's file is written by renaming a new one over it: never a shared path such as
// /dev/null (as root, the rename replaces the device with a regular file).
std::vector<std::string> heartbeat() { return {fixture("run_heartbeat"), "beat"}; }

TEST(StartupSignals, TimeBackend) {
  for (int sig : {SIGINT, SIGTERM}) sweep({"time", "tick", heartbeat()}, sig);
}
TEST(StartupSignals, NativeBackend) {
  for (int sig : {SIGINT, SIGTERM}) sweep({"native", "tick", heartbeat()}, sig);
}
// The program's native run takes milliseconds, its emulated run a second or more: the signals
// land before the program, in the native run, between the passes or in the emulated run.
TEST(StartupSignals, EmulBackend) {
  for (int sig : {SIGINT, SIGTERM}) sweep({"emul", "work", {fixture("run_split_app"), "200000"}}, sig);
}

// --- A pass that dies partway -------------------------------------------------------------------

// The emulated run of the same program ended where the native one did not: incomplete, W and Q
// null, the reason on the run and on the region.
void expect_cut_short(const std::vector<std::string>& args, int64_t native_calls, const std::string& why) {
  Sandbox sb;
  std::vector<std::string> argv{"run", "--backend", "emul", "--no-cache-sim", "-r", "flops", "--",
                                fixture("run_pass_limits")};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = sb.roofprof(argv, RunOptions{.timeout = 120s});
  EXPECT_EQ(r.exit_code(), 0) << "the program's status (it ran whole natively)" << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["complete"], false) << doc.dump(1);
  json reg = region(doc, "flops");
  EXPECT_EQ(calls(reg), native_calls);
  EXPECT_TRUE(null_or_absent(reg, "flops")) << reg.dump();
  EXPECT_TRUE(null_or_absent(reg, "instructions")) << reg.dump();
  EXPECT_TRUE(reg["bytes"]["L1"]["read"].is_null()) << reg.dump();
  EXPECT_TRUE(has_warning(doc, "region 'flops': flops and bytes (W and Q) not measured (null): the emulated run "
                               "ended early: the program " + why))
      << doc["warnings"].dump(1);
}

TEST(PartialPasses, ValgrindThreadLimitLeavesWNull) {
  expect_cut_short({"threads", "2000"}, 2000,
                   "exited with 1 under valgrind where it exited with 0 natively (valgrind: the 'impossible' "
                   "happened: Max number of threads is too low)");
}

TEST(PartialPasses, SeccompKillingValgrindLeavesWNull) {
  expect_cut_short({"seccomp"}, 3, "was killed by SIGSYS under valgrind where it exited with 0 natively");
}

// A signal after the native run ended, before or as the emulated one starts: the program leaves
// a child that sends SIGTERM to roofprof once the program has ended (its native run is whole).
// Whether it lands before valgrind starts or in valgrind's start-up, W is never the partial one.
TEST(PartialPasses, SignalBetweenThePassesLeavesWNull) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "-r", "flops", "--", fixture("run_pass_limits"),
                        "kill-parent"});
  EXPECT_EQ(r.exit_code(), 128 + SIGTERM) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["complete"], false) << doc.dump(1);
  json reg = region(doc, "flops");
  EXPECT_EQ(calls(reg), 1);
  EXPECT_TRUE(null_or_absent(reg, "flops")) << reg.dump();
  EXPECT_TRUE(has_warning(doc, "region 'flops': flops and bytes (W and Q) not measured (null): roofprof was "
                               "interrupted (SIGTERM) before the emulated run") ||
              has_warning(doc, "region 'flops': flops and bytes (W and Q) not measured (null): the emulated run was "
                               "interrupted"))
      << doc["warnings"].dump(1);
}

// --- Leftovers and leaks ------------------------------------------------------------------------

// Two signals during the emulated run: valgrind is killed at once; it leaves no FIFO (vgdb),
// log or event file in a private TMPDIR.
TEST(EmulLeftovers, DoubleSignalLeavesNoFilesInTmpdir) {
  Sandbox sb;
  const fs::path tmp = sb.path("tmp");
  fs::create_directories(tmp);
  RunOptions ro;
  ro.env["TMPDIR"] = tmp.string();
  auto prof = sb.start({roofprof_bin(), "run", "--backend", "emul", "--no-cache-sim", "-r", "work", "-o", "e.json",
                        "--", fixture("run_split_app"), "20000000"},
                       "roofprof", ro);
  ASSERT_TRUE(eventually([&] { return sb.captured("roofprof", "stderr").find("emulated run") != std::string::npos; },
                         60s))
      << sb.captured("roofprof", "stderr");
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(prof->running()) << "the emulated run ended before the signals";
  prof->signal(SIGTERM);
  prof->signal(SIGTERM);
  Status st = prof->finish(20s);
  const std::string err = sb.captured("roofprof", "stderr");
  ASSERT_FALSE(st.timed_out) << err;
  EXPECT_TRUE(st.exited && st.exit_code == 128 + SIGTERM) << describe(st) << "\n" << err;
  EXPECT_EQ(files_in(tmp), std::vector<std::string>{}) << "left in TMPDIR";
}

// A child the emulated program execs runs outside valgrind (no --follow-fork): it sees neither
// VALGRIND_LIB nor the LD_PRELOAD valgrind added (nor does the native run's child).
TEST(EmulLeftovers, ChildrenSeeNoValgrindVariables) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "-q", "--backend", "emul", "--no-cache-sim", "-r", "flops", "--",
                        fixture("run_pass_limits"), "env"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("PATH="), std::string::npos) << "env printed nothing" << r.diag();
  for (const auto& line : lines(r.out))
    for (const char* var : {"VALGRIND_LIB=", "LD_PRELOAD=", "VALGRIND_LAUNCHER="})
      EXPECT_NE(line.rfind(var, 0), 0u) << line;
  EXPECT_EQ(calls(region(load_result(r), "flops")), 1);
}

// --- The same processes and the same code in both passes ----------------------------------------

// Without --follow-fork the emulated run counted the forked child's calls (5 against the native
// run's 3): now both count the parent's 3, with no mismatch.
TEST(EmulProcesses, ForkedChildLeftOutWithoutFollowFork) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "-r", "fork_work", "--", fixture("run_forks"),
                        "fork"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["complete"], true);
  json reg = region(doc, "fork_work");
  EXPECT_EQ(calls(reg), 3);
  EXPECT_FALSE(has_warning(doc, "under emulation")) << doc["warnings"].dump(1);
  ASSERT_TRUE(reg["instructions"].is_number()) << reg.dump();
  // fork_work's instructions in the parent alone: the same per call whether or not the child ran.
  auto s = sb.roofprof({"run", "-o", "nochild.json", "--backend", "emul", "--no-cache-sim", "-r", "fork_work", "--",
                        fixture("run_forks"), "system"});
  json alone = region(load_result(s, "nochild.json"), "fork_work");
  EXPECT_EQ(reg["instructions"], alone["instructions"]) << reg.dump() << "\n" << alone.dump();
}

TEST(EmulProcesses, ExecWithoutFollowForkIsSaid) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "-r", "flops", "--", fixture("run_pass_limits"),
                        "exec"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_TRUE(has_warning(doc, "the program replaced itself (execve): without --follow-fork the emulated run "
                               "measured the code before the exec only"))
      << doc["warnings"].dump(1);
}

}  // namespace
}  // namespace it
