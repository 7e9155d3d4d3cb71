// Region semantics are the tracker's whichever probe mechanism reports the boundaries: the
// same tests run with the in-process agent alone (--no-ptrace), in the combined mode
// (--preload: the agent for what it can hook, breakpoints for the rest) and with breakpoints
// alone (recursion once, longjmp, exceptions, crash, exit, thread exit, threads, fork).
#include "harness.hpp"

namespace it {
namespace {

enum class Mode { Agent, Combined, Breakpoints };

std::string mode_name(const ::testing::TestParamInfo<Mode>& info) {
  switch (info.param) {
    case Mode::Agent: return "NoPtrace";
    case Mode::Combined: return "Combined";
    case Mode::Breakpoints: return "NoPreload";
  }
  return "?";
}

class PreloadSemantics : public ::testing::TestWithParam<Mode> {
 protected:
  RunResult agent_run(Sandbox& sb, const std::vector<std::string>& regions, const std::vector<std::string>& program,
                      const std::vector<std::string>& options = {}, const RunOptions& ro = {}) {
    // These tests count every call: probing never stops, however much the breakpoints cost a
    // loaded machine (the 10x rule has its own tests, ProbeCost.*).
    std::vector<std::string> args{"run", "--backend", "time", "-q", "--max-probe-slowdown", "0"};
    if (GetParam() == Mode::Agent) args.push_back("--no-ptrace");
    if (GetParam() == Mode::Combined) args.push_back("--preload");
    if (GetParam() == Mode::Breakpoints) args.push_back("--no-preload");
    args.insert(args.end(), options.begin(), options.end());
    for (const auto& r : regions) {
      args.push_back("--region");
      args.push_back(r);
    }
    args.push_back("--");
    args.push_back(fixture(program.at(0)));
    args.insert(args.end(), program.begin() + 1, program.end());
    return sb.roofprof(args, ro);
  }
  // The mechanism that measured `reg`: "agent" with --no-ptrace, "breakpoint" without the
  // agent, and `combined` (what the combined mode chooses for that function) with --preload.
  void expect_probe(const json& reg, const char* combined) {
    const char* want = GetParam() == Mode::Agent ? "agent" : GetParam() == Mode::Breakpoints ? "breakpoint" : combined;
    EXPECT_EQ(reg["sources"]["calls"], want) << reg.dump();
  }
};

// pre_rec recurses 5 deep through libpre_a's own PLT: two outermost calls, two instances.
TEST_P(PreloadSemantics, RecursionCountedOnce) {
  Sandbox sb;
  auto r = agent_run(sb, {"pre_rec"}, {"pre_app", "recursion", "5"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "rec=5,5\n");
  json reg = region(load_result(r), "pre_rec");
  EXPECT_EQ(calls(reg), 2) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 2) << reg.dump();
  expect_probe(reg, "patch");  // its direct calls of itself are the recursion, inside the instance
}

TEST_P(PreloadSemantics, LongjmpClosesTheInstance) {
  Sandbox sb;
  auto r = agent_run(sb, {"pre_jumper", "pre_sigjumper"}, {"pre_app", "longjmp"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "jumps=7,1,9\n");
  json doc = load_result(r);
  json j = region(doc, "pre_jumper");
  EXPECT_EQ(calls(j), 2) << j.dump();
  EXPECT_EQ(closed_by(j, "longjmp"), 1) << j.dump();
  EXPECT_EQ(closed_by(j, "return"), 1) << j.dump();
  expect_probe(j, "patch");
  json s = region(doc, "pre_sigjumper");
  EXPECT_EQ(calls(s), 1) << s.dump();
  EXPECT_EQ(closed_by(s, "longjmp"), 1) << s.dump();
  expect_probe(s, "patch");
}

// thrower: thrown out to main (1), caught inside catches_inside (2), caught and rethrown by
// rethrows (3), then one normal return; recursion inside each counts once.
TEST_P(PreloadSemantics, ExceptionsThroughRegions) {
  Sandbox sb;
  auto r = agent_run(sb, {"pre_cxx::thrower", "pre_cxx::catches_inside", "pre_cxx::rethrows"}, {"pre_cxx_app"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "caught=2 inside=-1 normal=2 widget=15\n");
  json doc = load_result(r);
  json t = region(doc, "pre_cxx::thrower");
  EXPECT_EQ(calls(t), 4) << t.dump();
  EXPECT_EQ(closed_by(t, "exception"), 3) << t.dump();
  EXPECT_EQ(closed_by(t, "return"), 1) << t.dump();
  expect_probe(t, "patch");
  json in = region(doc, "pre_cxx::catches_inside");
  EXPECT_EQ(calls(in), 1) << in.dump();
  EXPECT_EQ(closed_by(in, "return"), 1) << in.dump();
  expect_probe(in, "patch");
  json re = region(doc, "pre_cxx::rethrows");
  EXPECT_EQ(calls(re), 1) << re.dump();
  EXPECT_EQ(closed_by(re, "exception"), 1) << re.dump();
  expect_probe(re, "patch");
}

// Records written before the crash survive it; the crash record carries the counts.
TEST_P(PreloadSemantics, CrashInsideRegion) {
  Sandbox sb;
  auto r = agent_run(sb, {"pre_work", "pre_crash"}, {"pre_app", "crash", "3"});
  EXPECT_EQ(r.exit_code(), 139) << r.diag();
  EXPECT_EQ(r.out, "sum=1326\n");
  json doc = load_result(r);
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["term_signal"], 11) << doc.dump(1);
  EXPECT_TRUE(doc["exit_status"].is_null()) << doc.dump(1);
  json w = region(doc, "pre_work");
  EXPECT_EQ(calls(w), 3) << w.dump();
  EXPECT_EQ(closed_by(w, "return"), 3) << w.dump();
  expect_probe(w, "patch");
  json c = region(doc, "pre_crash");
  EXPECT_EQ(calls(c), 1) << c.dump();
  EXPECT_EQ(closed_by(c, "crash"), 1) << c.dump();
  EXPECT_GT(counter(c, "task-clock"), 0) << c.dump();
  expect_probe(c, "patch");
}

TEST_P(PreloadSemantics, ExitInsideRegion) {
  Sandbox sb;
  auto r = agent_run(sb, {"pre_exit_inside"}, {"pre_app", "exit", "3"});
  EXPECT_EQ(r.exit_code(), 3) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["exit_status"], 3);
  json reg = region(doc, "pre_exit_inside");
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "process_exit"), 1) << reg.dump();
  expect_probe(reg, "patch");
}

// pthread_exit unwinds the thread's stack through a hooked call: the return address is back
// in place for glibc's unwinder, and the instance closes as thread_exit.
TEST_P(PreloadSemantics, PthreadExitInsideRegion) {
  Sandbox sb;
  auto r = agent_run(sb, {"pre_thread_exit_inside"}, {"pre_app", "pthread_exit"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "joined\n");
  json reg = region(load_result(r), "pre_thread_exit_inside");
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "thread_exit"), 1) << reg.dump();
  expect_probe(reg, "patch");
}

// 8 threads, k calls each: calls == 8k. Also with a 16-slot ring, where the agent must wait
// for roofprof to drain it again and again: nothing is lost (with breakpoints, fewer calls:
// each costs two ptrace stops).
TEST_P(PreloadSemantics, EightThreadsCallingKTimes) {
  for (const char* ring : {"", "16"}) {
    SCOPED_TRACE(std::string("ring slots: ") + (*ring ? ring : "default"));
    if (GetParam() == Mode::Breakpoints && *ring) continue;  // no ring
    const int k = GetParam() == Mode::Breakpoints ? 100 : 2000;
    Sandbox sb;
    RunOptions ro;
    if (*ring) ro.env["ROOFPROF_AGENT_RING"] = ring;
    auto r = agent_run(sb, {"pre_work"}, {"pre_app", "threads", "8", std::to_string(k)}, {}, ro);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_EQ(r.out, "threads=8 calls=" + std::to_string(8 * k) + "\n");
    json doc = load_result(r);
    json reg = region(doc, "pre_work");
    EXPECT_EQ(calls(reg), 8 * k) << reg.dump();
    EXPECT_EQ(closed_by(reg, "return"), 8 * k) << reg.dump();
    EXPECT_EQ(threads(reg), 8) << reg.dump();
    expect_probe(reg, "patch");
    EXPECT_EQ(doc["complete"], true);
    // With breakpoints, 1,600 stops can be a quarter of the run on a loaded machine: the run
    // then says what its probes cost (docs/methodology.md), and nothing else.
    for (const auto& w : plain_warnings(doc))
      EXPECT_EQ(w.get<std::string>().rfind("region 'pre_work': its probes made", 0) == 0 &&
                    GetParam() == Mode::Breakpoints,
                true)
          << w;
  }
}

// roofprof's reader, so as not to take the program's cores, sleeps on the agents' doorbell and
// wakes when a ring fills past half its slots (or a process ends, a stop, or 100 ms): with a
// 1024-slot ring, 100,000 calls (200,000 records) wake it about 400 times, never once a record, and
// every call is counted.
TEST_P(PreloadSemantics, TheReaderSleepsUntilARingFillsPastItsMark) {
  if (GetParam() == Mode::Breakpoints) GTEST_SKIP() << "no agent, no reader";
  Sandbox sb;
  RunOptions ro;
  ro.env["ROOFPROF_AGENT_RING"] = "1024";
  auto r = agent_run(sb, {"pre_work"}, {"pre_app", "calls", "100000"}, {"-e", "none"}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  json reg = region(doc, "pre_work");
  EXPECT_EQ(calls(reg), 100000) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 100000) << reg.dump();
  EXPECT_EQ(doc["complete"], true);
  ASSERT_TRUE(doc.contains("agent_reader")) << doc.dump().substr(0, 2000);
  const json& reader = doc["agent_reader"];
  EXPECT_GT(num(reader, "cpu_s"), 0) << reader.dump();
  EXPECT_GE(reader["rings"].get<double>(), 1) << reader.dump();  // the agent woke it past the mark
  EXPECT_LE(reader["rings"], reader["sleeps"]) << reader.dump();
  // Each sleep ends at a ring (at most one per 512 records), a stop, or the 100 ms timeout.
  EXPECT_LT(reader["sleeps"].get<double>(), 200000.0 / 256 + 10 * num(doc, "wall_time_s") + 200) << reader.dump();
}

// A forked child inherits the agent: silent without --follow-fork, measured with it.
TEST_P(PreloadSemantics, ForkedChild) {
  for (bool follow : {false, true}) {
    SCOPED_TRACE(follow ? "--follow-fork" : "no --follow-fork");
    Sandbox sb;
    std::vector<std::string> opts;
    if (follow) opts.push_back("--follow-fork");
    auto r = agent_run(sb, {"pre_work"}, {"pre_app", "fork", "5"}, opts);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_EQ(r.out, "sum=2210 child=0\n");
    json reg = region(load_result(r), "pre_work");
    EXPECT_EQ(calls(reg), follow ? 10 : 5) << reg.dump();
    EXPECT_EQ(threads(reg), follow ? 2 : 1) << reg.dump();
    expect_probe(reg, "patch");
  }
}

// The combined mode with its three mechanisms in one run: thread_main, static in the executable,
// and pre_work, a library function, are patched; app_spin (static) and pre_spin (exported,
// called only through the PLT) loop back into their first bytes, so no patch can take them:
// app_spin gets a breakpoint, pre_spin the agent's GOT hook. Each region is counted once per
// call, by its own mechanism, on the same threads.
TEST(CombinedMode, PatchesGotHooksAndBreakpointsInOneRun) {
  Sandbox sb;
  constexpr int k = 500;
  auto r = sb.roofprof({"run", "--preload", "--backend", "time", "-q", "--region", "thread_main", "--region",
                        "pre_work", "--region", "app_spin", "--region", "pre_spin", "--", fixture("pre_app"),
                        "threads", "4", std::to_string(k)});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "threads=4 calls=2000\n");
  json doc = load_result(r);
  json t = region(doc, "thread_main");
  EXPECT_EQ(calls(t), 4) << t.dump();
  EXPECT_EQ(closed_by(t, "return"), 4) << t.dump();
  EXPECT_EQ(threads(t), 4) << t.dump();
  EXPECT_EQ(t["sources"]["calls"], "patch") << t.dump();
  json w = region(doc, "pre_work");
  EXPECT_EQ(calls(w), 4 * k) << w.dump();
  EXPECT_EQ(closed_by(w, "return"), 4 * k) << w.dump();
  EXPECT_EQ(threads(w), 4) << w.dump();
  EXPECT_EQ(w["sources"]["calls"], "patch") << w.dump();
  json a = region(doc, "app_spin");
  EXPECT_EQ(calls(a), 4) << a.dump();
  EXPECT_EQ(a["sources"]["calls"], "breakpoint") << a.dump();
  json p = region(doc, "pre_spin");
  EXPECT_EQ(calls(p), 4) << p.dump();
  EXPECT_EQ(closed_by(p, "return"), 4) << p.dump();
  EXPECT_EQ(p["sources"]["calls"], "agent") << p.dump();
  // Same events, same clock: thread_main's instances enclose pre_work's.
  EXPECT_GE(num(t, "time_s"), num(w, "time_s")) << doc.dump(1);
  // The one warning: app_spin's entry is measured by a breakpoint (pre_spin's by the agent).
  std::string warnings = doc["warnings"].dump();
  EXPECT_NE(warnings.find("region 'app_spin': the entry of app_spin (pre_app) cannot be patched (a jump inside the "
                          "function lands in its first 5 bytes)"),
            std::string::npos)
      << warnings;
  EXPECT_EQ(plain_warnings(doc).size(), 1u) << warnings;
}

// Without --preload or --no-preload, run is the combined mode; --no-preload is breakpoints
// only; where the combined mode does not apply, an explicit --preload is said to have no effect.
TEST(CombinedMode, IsTheDefault) {
  Sandbox sb;
  auto probe = [&](std::vector<std::string> opts) {
    std::vector<std::string> args{"run", "--backend", "time", "-q", "--region", "pre_work"};
    args.insert(args.end(), opts.begin(), opts.end());
    args.insert(args.end(), {"--", fixture("pre_app"), "calls", "10"});
    auto r = sb.roofprof(args);
    EXPECT_EQ(r.exit_code(), 0) << r.diag();
    json doc = load_result(r);
    json reg = region(doc, "pre_work");
    EXPECT_EQ(calls(reg), 10) << reg.dump();
    return std::make_pair(reg["sources"]["calls"], plain_warnings(doc));
  };
  auto [dflt, w1] = probe({});
  EXPECT_EQ(dflt, "patch");
  EXPECT_TRUE(w1.empty()) << w1.dump(1);
  auto [off, w2] = probe({"--no-preload"});
  EXPECT_EQ(off, "breakpoint");
  EXPECT_TRUE(w2.empty()) << w2.dump(1);
  auto [cold, w3] = probe({"--preload", "--cache-state", "cold"});
  EXPECT_EQ(cold, "breakpoint");
  ASSERT_EQ(w3.size(), 1u) << w3.dump(1);
  EXPECT_NE(w3[0].get<std::string>().find("--preload has no effect"), std::string::npos) << w3.dump(1);
}

INSTANTIATE_TEST_SUITE_P(Modes, PreloadSemantics,
                         ::testing::Values(Mode::Agent, Mode::Combined, Mode::Breakpoints), mode_name);

}  // namespace
}  // namespace it
