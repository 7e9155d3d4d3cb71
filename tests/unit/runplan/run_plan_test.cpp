// The decision table of `roofprof run`, row by row (runplan/run_plan.hpp).
#include "runplan/run_plan.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace roofprof::runplan {
namespace {

using counters::BackendChoice;
using counters::BackendKind;
using counters::BackendRequest;

BackendChoice chose(BackendKind k) { return BackendChoice{k, "chosen", {"a note"}}; }

Plan plan(const Request& r, BackendKind k = BackendKind::time, bool agent_counts = true, bool is_static = false,
          std::optional<LaunchInfo> launch = std::nullopt) {
  return make_plan(r, chose(k), agent_counts, Program{is_static, {}}, launch);
}

LaunchInfo mpirun() { return LaunchInfo{"openmpi", 1, 4, std::nullopt}; }

TEST(RunPlan, DefaultIsTheCombinedMode) {
  Plan p = plan(Request{});
  EXPECT_EQ(p.native, Mechanism::Combined);
  EXPECT_EQ(p.counting.kind, BackendKind::time);
  EXPECT_EQ(p.counting.warnings, std::vector<std::string>{"a note"});  // the choice's notes are kept
  EXPECT_FALSE(p.emulated_pass);
  EXPECT_EQ(p.eviction, Eviction::None);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(RunPlan, NoPreloadIsBreakpointsWithoutAWord) {
  Request r;
  r.preload = false;
  r.preload_given = true;
  Plan p = plan(r);
  EXPECT_EQ(p.native, Mechanism::Breakpoints);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(RunPlan, NoPtraceIsTheAgentAloneAndItEvictsWhenCold) {
  Request r;
  r.no_ptrace = true;
  r.cache_state = CacheState::Cold;
  Plan p = plan(r);
  EXPECT_EQ(p.native, Mechanism::Agent);
  EXPECT_EQ(p.eviction, Eviction::Agent);
}

TEST(RunPlan, ColdIsBreakpointsEvictingInTheTracer) {
  Request r;
  r.cache_state = CacheState::Cold;
  Plan quiet = plan(r);
  EXPECT_EQ(quiet.native, Mechanism::Breakpoints);
  EXPECT_EQ(quiet.eviction, Eviction::Tracer);
  EXPECT_TRUE(quiet.warnings.empty());  // --preload was the default, not asked for
  r.preload_given = true;
  Plan said = plan(r);
  ASSERT_EQ(said.warnings.size(), 1u);
  EXPECT_NE(said.warnings[0].find("--preload has no effect"), std::string::npos);
}

TEST(RunPlan, AttachingIsBreakpoints) {
  Request r;
  r.launch = false;
  r.preload_given = true;
  Plan p = plan(r);
  EXPECT_EQ(p.native, Mechanism::Breakpoints);
  EXPECT_EQ(p.warnings.size(), 1u);
}

TEST(RunPlan, EmulationRunsTheProgramTwiceMarkedLikeTheNativeRun) {
  Request r;
  r.backend = BackendRequest::emul;
  Plan p = plan(r, BackendKind::emul);
  EXPECT_TRUE(p.emulated_pass);
  // The native run that gives T uses the agent (entry patches, GOT hooks) like any other; the
  // emulated pass has probes of its own.
  EXPECT_EQ(p.native, Mechanism::Combined);
  EXPECT_FALSE(p.emulated_marks_by_agent);
  r.no_ptrace = true;
  Plan a = plan(r, BackendKind::emul);
  EXPECT_EQ(a.native, Mechanism::Agent);
  EXPECT_TRUE(a.emulated_marks_by_agent);
}

TEST(RunPlan, EmulationCannotStartAnAttachedProcessAgain) {
  Request r;
  r.launch = false;
  r.backend = BackendRequest::emul;
  EXPECT_THROW(plan(r, BackendKind::emul), UserError);
  r.backend = BackendRequest::automatic;  // auto chose emul: falls back to time, says why
  Plan p = plan(r, BackendKind::emul);
  EXPECT_EQ(p.counting.kind, BackendKind::time);
  EXPECT_FALSE(p.emulated_pass);
  EXPECT_NE(p.counting.reason.find("attaching"), std::string::npos);
}

// A rank cannot be started twice: emulation asked for by name runs the rank once, emulated only
// (regions marked by the agent, no eviction: the tool's simulated caches are emptied instead);
// auto falls back to time.
TEST(RunPlan, EmulationCannotStartAnMpiRankAgain) {
  Request r;
  r.backend = BackendRequest::emul;
  r.cache_state = CacheState::Cold;
  Plan only = plan(r, BackendKind::emul, true, false, mpirun());
  EXPECT_EQ(only.counting.kind, BackendKind::emul);
  EXPECT_FALSE(only.native_pass);
  EXPECT_TRUE(only.emulated_pass);
  EXPECT_TRUE(only.emulated_marks_by_agent);
  EXPECT_EQ(only.eviction, Eviction::None);
  EXPECT_NE(only.counting.reason.find("time not measured"), std::string::npos);
  EXPECT_TRUE(plan(r, BackendKind::emul, true, false, std::nullopt).native_pass);  // outside a job: two runs
  r.cache_state = CacheState::Warm;
  r.backend = BackendRequest::automatic;
  Plan p = plan(r, BackendKind::emul, true, false, mpirun());
  EXPECT_EQ(p.counting.kind, BackendKind::time);
  EXPECT_NE(p.counting.reason.find("openmpi"), std::string::npos);
  EXPECT_EQ(p.native, Mechanism::Combined);  // a rank is launched: the agent can help
}

TEST(RunPlan, EventsTheAgentCannotCountKeepEveryRegionOnBreakpoints) {
  Request r;
  EXPECT_EQ(plan(r, BackendKind::perf, false).native, Mechanism::Breakpoints);
  r.preload_given = true;
  Plan p = plan(r, BackendKind::perf, false);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("cannot count the run's events"), std::string::npos);
}

TEST(RunPlan, StaticProgramIsBreakpoints) {
  Request r;
  r.preload_given = true;
  Plan p = plan(r, BackendKind::time, true, true);
  EXPECT_EQ(p.native, Mechanism::Breakpoints);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("statically linked"), std::string::npos);
}

TEST(RunPlan, RequestsThatCannotBePlanned) {
  Request pid_repeat;
  pid_repeat.launch = false;
  pid_repeat.repeat = 2;
  EXPECT_THROW(plan(pid_repeat), UserError);
  Request rank_repeat;
  rank_repeat.repeat = 3;
  EXPECT_THROW(plan(rank_repeat, BackendKind::time, true, false, mpirun()), UserError);
  EXPECT_NO_THROW(plan(rank_repeat));  // outside a launcher
  Request agent_pid;
  agent_pid.launch = false;
  agent_pid.no_ptrace = true;
  EXPECT_THROW(plan(agent_pid), UserError);
}

}  // namespace
}  // namespace roofprof::runplan

namespace roofprof::runplan {
namespace {

BackendChoice native_choice(bool valgrind) {
  BackendChoice c{BackendKind::native, "native", {}};
  c.traffic_by_emulation = valgrind;
  return c;
}

// Native counting: the tracer patches the code, and an emulated pass measures the bytes below L1
// where valgrind is.
TEST(RunPlan, NativeCountingWithAnEmulatedPassForTheTraffic) {
  Plan p = make_plan(Request{}, native_choice(true), true, Program{}, std::nullopt);
  EXPECT_EQ(p.counting.kind, BackendKind::native);
  EXPECT_TRUE(p.native_counting);
  EXPECT_TRUE(p.emulated_pass);
  EXPECT_TRUE(p.emulated_traffic_only);
  EXPECT_EQ(p.native, Mechanism::Combined);
  Plan without = make_plan(Request{}, native_choice(false), true, Program{}, std::nullopt);
  EXPECT_TRUE(without.native_counting);
  EXPECT_FALSE(without.emulated_pass);
}

// It patches code through ptrace as modules load: --pid and --no-ptrace get what auto would pick
// without it, and asking for it by name there is a one-line error.
TEST(RunPlan, NativeCountingNeedsToStartTheProgramUnderPtrace) {
  const BackendChoice emul{BackendKind::emul, "valgrind 3.24.0 found: exact counts by emulation (much slower)", {}};
  Request no_ptrace;
  no_ptrace.no_ptrace = true;
  Plan p = make_plan(no_ptrace, native_choice(true), true, Program{}, std::nullopt, &emul);
  EXPECT_EQ(p.counting.kind, BackendKind::emul);
  EXPECT_FALSE(p.native_counting);
  EXPECT_EQ(p.counting.reason.rfind("native counting patches the program's code through ptrace, which --no-ptrace "
                                    "turns off; valgrind",
                                    0),
            0u)
      << p.counting.reason;
  Request attach;
  attach.launch = false;
  Plan a = make_plan(attach, native_choice(true), true, Program{}, std::nullopt, &emul);
  EXPECT_EQ(a.counting.kind, BackendKind::time);  // emulation cannot attach either
  attach.backend = BackendRequest::native;
  EXPECT_THROW(make_plan(attach, native_choice(true), true, Program{}, std::nullopt, &emul), UserError);
}

// Its counts live in glibc's thread control block: a program built on another C library (musl, a
// static Go program) gets what auto picks without native counting, and asking for it by name is
// a one-line error.
TEST(RunPlan, NativeCountingNeedsAGlibcProgram) {
  const BackendChoice emul{BackendKind::emul, "valgrind 3.24.0 found: exact counts by emulation (much slower)", {}};
  Program musl;
  musl.not_glibc = "its dynamic linker is /lib/ld-musl-x86_64.so.1, not glibc's";
  Plan p = make_plan(Request{}, native_choice(true), true, musl, std::nullopt, &emul);
  EXPECT_EQ(p.counting.kind, BackendKind::emul);
  EXPECT_FALSE(p.native_counting);
  EXPECT_EQ(p.counting.reason, "native counting keeps its counts in glibc's thread control block, and its dynamic "
                               "linker is /lib/ld-musl-x86_64.so.1, not glibc's; " + emul.reason);
  Request by_name;
  by_name.backend = BackendRequest::native;
  try {
    make_plan(by_name, native_choice(true), true, musl, std::nullopt, &emul);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "--backend native: native counting keeps its counts in glibc's thread control "
                                     "block, and its dynamic linker is /lib/ld-musl-x86_64.so.1, not glibc's; use "
                                     "--backend emul or time");
  }
  EXPECT_TRUE(make_plan(by_name, native_choice(true), true, Program{}, std::nullopt, &emul).native_counting);
}

// A rank of an MPI job runs once: native counting, no emulated pass, said.
TEST(RunPlan, NativeCountingUnderALauncherRunsOnce) {
  Plan p = make_plan(Request{}, native_choice(true), true, Program{}, mpirun());
  EXPECT_TRUE(p.native_counting);
  EXPECT_TRUE(p.native_pass);
  EXPECT_FALSE(p.emulated_pass);
  ASSERT_EQ(p.counting.warnings.size(), 1u);
  EXPECT_NE(p.counting.warnings[0].find("runs once: bytes (Q) below L1"), std::string::npos);
}

// The message check_asks throws for `asks` against `p` ("" when it throws none).
std::string refusal(const Plan& p, const Asks& asks, const Request& r = Request{}) {
  try {
    check_asks(r, p, asks);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckAsks, EmulatedOnlyOptionsNeedTheEmulatedPass) {
  const Plan timed = plan(Request{});
  Request emul;
  emul.backend = BackendRequest::emul;
  const Plan emulated = plan(emul, BackendKind::emul);
  ASSERT_TRUE(emulated.emulated_pass);
  Asks cache;
  cache.cache_geometry = true;
  EXPECT_EQ(refusal(timed, cache),
            "--cache sets the caches the emulated run simulates, and this run has none: use --backend emul (or auto "
            "on a machine without hardware counters)");
  EXPECT_EQ(refusal(emulated, cache), "");
  Asks ceilings;
  ceilings.ceilings = true;
  EXPECT_EQ(refusal(timed, ceilings).rfind("--ceilings gives the measured caches", 0), 0u);
  EXPECT_EQ(refusal(emulated, ceilings), "");
  Asks annotate;
  annotate.annotate = true;
  EXPECT_EQ(refusal(timed, annotate).rfind("--annotate counts each instruction", 0), 0u);
  EXPECT_EQ(refusal(emulated, annotate), "");
  EXPECT_EQ(refusal(timed, Asks{}), "");
}

TEST(CheckAsks, CallerGroupsNeedANativeRunAndBreakpointsForDepth) {
  Asks caller;
  caller.group_by = GroupBy::Caller;
  caller.group_by_text = "caller";
  Request emul;
  emul.backend = BackendRequest::emul;
  const Plan rank_only = plan(emul, BackendKind::emul, true, false, mpirun());
  ASSERT_FALSE(rank_only.native_pass);
  EXPECT_EQ(refusal(rank_only, caller),
            "--group-by caller: the emulated run of an MPI rank records no call paths; use --backend time or perf "
            "under the launcher");
  EXPECT_EQ(refusal(plan(Request{}), caller), "");
  Request agent_alone;
  agent_alone.no_ptrace = true;
  const Plan agent = plan(agent_alone);
  EXPECT_EQ(refusal(agent, caller, agent_alone), "");  // depth 1: the agent records the caller
  Asks deep = caller;
  deep.caller_depth = 3;
  deep.group_by_text = "caller:3";
  EXPECT_EQ(refusal(agent, deep, agent_alone),
            "--group-by caller:3: with --no-ptrace the in-process agent records the caller only (caller or caller:1); "
            "deeper paths are unwound at breakpoints");
  EXPECT_EQ(refusal(plan(Request{}), deep), "");  // breakpoints unwind
  Asks args;
  args.caller_depth = 3;  // ignored when grouped by arguments
  EXPECT_EQ(refusal(agent, args, agent_alone), "");
}

}  // namespace
}  // namespace roofprof::runplan
