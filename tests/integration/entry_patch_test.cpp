// Entry patches (docs/preload.md, "Entry patches"): in the default (combined) mode the tracer
// patches the entries of static functions of the executable, and the in-process agent measures
// their calls without a ptrace stop; an entry that cannot be patched keeps a breakpoint and the
// result says so.
#include "harness.hpp"

namespace it {
namespace {

RunResult patch_run(Sandbox& sb, const std::vector<std::string>& regions, const std::vector<std::string>& program_args,
                    const std::vector<std::string>& options = {}, const RunOptions& ro = {}) {
  std::vector<std::string> args{"run", "-q"};
  if (std::find(options.begin(), options.end(), "--backend") == options.end()) args.insert(args.end(), {"--backend", "time"});
  args.insert(args.end(), options.begin(), options.end());
  for (const auto& r : regions) {
    args.push_back("-r");
    args.push_back(r);
  }
  args.push_back("--");
  args.push_back(fixture("run_patch_calls"));
  args.insert(args.end(), program_args.begin(), program_args.end());
  return sb.roofprof(args, ro);
}

bool has_warning(const json& doc, const std::string& part) {
  for (const auto& w : doc.value("warnings", json::array()))
    if (w.get<std::string>().find(part) != std::string::npos) return true;
  return false;
}

TEST(EntryPatch, StaticFunctionsOfTheExecutableAreMeasuredWithoutStops) {
  for (bool unprivileged : {false, true}) {
    SCOPED_TRACE(unprivileged ? "as nobody" : "as root");
    Sandbox sb;
    RunOptions ro;
    ro.unprivileged = unprivileged;
    auto r = patch_run(sb, {"st_tiny", "st_guarded"}, {"100000", "0"}, {}, ro);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_EQ(r.out, "100000 " + std::to_string([] {
                long g = 0;
                for (long i = 0; i < 1000; ++i) {
                  long n = i % 7, s = 0;
                  for (long k = 0; k < n; ++k) s += k ^ (s >> 3);
                  g += s;
                }
                return g;
              }()) + " 0\n");
    json doc = load_result(r);
    json tiny = region(doc, "st_tiny");
    EXPECT_EQ(calls(tiny), 100000) << tiny.dump();
    EXPECT_EQ(closed_by(tiny, "return"), 100000) << tiny.dump();
    EXPECT_EQ(tiny["sources"]["calls"], "patch") << tiny.dump();
    EXPECT_FALSE(tiny.contains("probe_cost") && !tiny["probe_cost"].is_null()) << tiny.dump();  // no stops
    json guarded = region(doc, "st_guarded");
    EXPECT_EQ(calls(guarded), 1000) << guarded.dump();
    EXPECT_EQ(guarded["sources"]["calls"], "patch") << guarded.dump();
    EXPECT_FALSE(has_warning(doc, "cannot be patched")) << doc["warnings"].dump();
    // The agent's cost per boundary, measured at start: a tiny function's time is mostly it.
    ASSERT_TRUE(doc.contains("agent_boundary")) << doc.dump(1).substr(0, 2000);
    EXPECT_EQ(doc["agent_boundary"]["calls"], 256);
    EXPECT_GT(num(doc["agent_boundary"], "inside_s"), 0);
    EXPECT_GE(num(doc["agent_boundary"], "per_call_s"), num(doc["agent_boundary"], "inside_s"));
    EXPECT_TRUE(has_warning(doc, "region 'st_tiny': about ")) << doc["warnings"].dump();
    EXPECT_TRUE(has_warning(doc, "of its time is the in-process probe's own work")) << doc["warnings"].dump();
  }
}

// The overhead warning quotes the per-call cost the result records (agent_boundary),
// and with counters points at -e none.
TEST(EntryPatch, TheOverheadWarningQuotesTheResultsPerCallCost) {
  for (bool counters : {true, false}) {
    SCOPED_TRACE(counters ? "default counters" : "-e none");
    Sandbox sb;
    std::vector<std::string> options;
    if (!counters) options = {"-e", "none"};
    auto r = patch_run(sb, {"st_tiny"}, {"100000", "0"}, options);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json doc = load_result(r);
    ASSERT_TRUE(doc.contains("agent_boundary")) << doc.dump(1).substr(0, 2000);
    EXPECT_EQ(doc["events"].empty(), !counters) << doc["events"].dump();
    char figures[160];
    std::snprintf(figures, sizeof figures,
                  "each call costs the program %.3f us more (agent_boundary.per_call_s, measured at start-up), %.3f "
                  "us of it inside the call's time (agent_boundary.inside_s)",
                  num(doc["agent_boundary"], "per_call_s") * 1e6, num(doc["agent_boundary"], "inside_s") * 1e6);
    EXPECT_TRUE(has_warning(doc, std::string("region 'st_tiny': about "))) << doc["warnings"].dump();
    EXPECT_TRUE(has_warning(doc, figures)) << figures << "\n" << doc["warnings"].dump();
    EXPECT_EQ(has_warning(doc, "counters with system calls: -e none times the calls without them"), counters)
        << doc["warnings"].dump();
  }
}

TEST(EntryPatch, AnEntryThatCannotBePatchedKeepsABreakpointAndSaysWhy) {
  Sandbox sb;
  auto r = patch_run(sb, {"st_unpatchable", "st_tiny"}, {"1000", "25"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  json u = region(doc, "st_unpatchable");
  EXPECT_EQ(calls(u), 25) << u.dump();
  EXPECT_EQ(u["sources"]["calls"], "breakpoint") << u.dump();
  EXPECT_TRUE(has_warning(doc, "region 'st_unpatchable': the entry of st_unpatchable (run_patch_calls) cannot be "
                               "patched (a jump inside the function lands in its first 5 bytes)"))
      << doc["warnings"].dump();
  EXPECT_EQ(region(doc, "st_tiny")["sources"]["calls"], "patch");
}

// The scan for rel32 jumps into an entry covers the whole module, beyond a rel8's reach: a
// function 512 bytes away that jumps to the second instruction keeps the entry from a patch.
TEST(EntryPatch, AnEntryThatCodeFarAwayJumpsIntoKeepsABreakpoint) {
  Sandbox sb;
  auto r = patch_run(sb, {"st_entry_target", "st_skips_first", "st_tiny"}, {"1000", "0", "40"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out.substr(r.out.rfind(' ')), " 0\n") << r.out;  // both returned 6 every time
  json doc = load_result(r);
  json target = region(doc, "st_entry_target");
  EXPECT_EQ(calls(target), 40) << target.dump();  // entered at its entry; the jumps past it are no calls
  EXPECT_EQ(target["sources"]["calls"], "breakpoint") << target.dump();
  EXPECT_TRUE(has_warning(doc, "region 'st_entry_target': the entry of st_entry_target (run_patch_calls) cannot be "
                               "patched (code elsewhere in the module jumps into its first 8 bytes)"))
      << doc["warnings"].dump();
  EXPECT_EQ(calls(region(doc, "st_skips_first")), 40);
  EXPECT_EQ(region(doc, "st_skips_first")["sources"]["calls"], "patch");
  EXPECT_EQ(region(doc, "st_tiny")["sources"]["calls"], "patch");
}

// Every function of python3, numpy, OpenBLAS and the C library at once (--region '*'): more
// than 20,000 entries patched, hand-written assembly (glibc's string functions, which jump into
// each other's first bytes), local functions whose callers keep values in registers across
// the call (-fipa-ra), setjmp, the dynamic linker's internal longjmps. The program must compute
// the same result, and the calls it makes through the patches must be counted.
TEST(EntryPatch, EveryFunctionOfPythonNumpyAndOpenBlasAtOnce) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 240s;
  ro.env["OPENBLAS_NUM_THREADS"] = "1";
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "-r", "*", "--",
                        "/usr/bin/python3", "-c", "import numpy as np; a=np.ones((50,50)); print((a@a).sum())"},
                       ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "125000.0\n");
  json doc = load_result(r);
  size_t patched = 0;
  for (const auto& reg : doc["regions"])
    if (reg["sources"].value("calls", "").find("patch") != std::string::npos) ++patched;
  EXPECT_GT(patched, 20000u);
  json init = region(doc, "PyPreConfig_InitPythonConfig");  // local; its caller keeps r8-r10 across the call
  EXPECT_GE(calls(init), 1) << init.dump();
  EXPECT_EQ(init["sources"]["calls"], "patch") << init.dump();
  json gemm = region(doc, "cblas_dgemm");  // numpy's a@a
  EXPECT_GE(calls(gemm), 1) << gemm.dump();
}

// The emulation method's native run, which gives T, uses the patches too, and reads the clock
// only: two read() system calls per boundary would distort short calls' time.
TEST(EntryPatch, EmulationTimesWithPatchesAndTheClockOnly) {
  Sandbox sb;
  auto r = patch_run(sb, {"st_tiny"}, {"1000", "0"}, {"--backend", "emul", "--no-cache-sim"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["backend"], "emul");
  EXPECT_TRUE(doc["events"].empty()) << doc["events"].dump();
  json t = region(doc, "st_tiny");
  EXPECT_EQ(calls(t), 1000) << t.dump();
  EXPECT_EQ(t["sources"]["calls"], "patch") << t.dump();
  // push, mov, mov, mov, add, pop, ret (the fixture is built at -O0), exactly, from the emulated run
  EXPECT_EQ(t["instructions"], 7000) << t.dump();
}

// setjmp saves its return address and returns through it again at longjmp; the agent's exit
// stub would be saved instead, and its frame is gone by then (the program aborted with
// --no-ptrace). One rule for both sides (preload/probe_rules.h): breakpoints measure the setjmp
// family in the combined mode; with --no-ptrace the agent leaves it alone and says why.
TEST(EntryPatch, TheSetjmpFamilyIsNeverTakenInProcess) {
  Sandbox sb;
  auto combined = sb.roofprof({"run", "--backend", "time", "-q", "-r", "*setjmp*", "--", fixture("pre_app"), "longjmp"});
  ASSERT_EQ(combined.exit_code(), 0) << combined.diag();
  EXPECT_EQ(combined.out, "jumps=7,1,9\n");
  json doc = load_result(combined);
  json sj = region(doc, "__sigsetjmp");
  EXPECT_GT(calls(sj), 0) << sj.dump();
  EXPECT_EQ(sj["sources"]["calls"], "breakpoint") << sj.dump();
  EXPECT_NE(doc["warnings"].dump().find("cannot be patched (it keeps its return address"), std::string::npos)
      << doc["warnings"].dump();

  auto alone = sb.roofprof({"run", "--no-ptrace", "--backend", "time", "-q", "-r", "*setjmp*", "-o", "alone.json",
                            "--", fixture("pre_app"), "longjmp"});
  ASSERT_EQ(alone.exit_code(), 0) << alone.diag();
  EXPECT_EQ(alone.out, "jumps=7,1,9\n");
  json a = load_result(alone, "alone.json");
  EXPECT_NE(a["warnings"].dump().find("__sigsetjmp keeps its return address to return through it again"),
            std::string::npos)
      << a["warnings"].dump();
}

TEST(EntryPatch, NoPreloadMeasuresWithBreakpoints) {
  Sandbox sb;
  auto r = patch_run(sb, {"st_tiny"}, {"200", "0"}, {"--no-preload"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json t = region(load_result(r), "st_tiny");
  EXPECT_EQ(calls(t), 200);
  EXPECT_EQ(t["sources"]["calls"], "breakpoint");
}

}  // namespace
}  // namespace it
