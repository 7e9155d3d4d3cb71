// Functions the dynamic linker resolves at run time (IFUNC: libm's cos, libc's memcpy), and a
// program that enters seccomp strict mode (fault suite) with the agent loaded.
#include "harness.hpp"

namespace it {
namespace {

json warnings_of(const json& doc) { return doc.value("warnings", json::array()); }

bool any_warning_has(const json& doc, const std::string& text) {
  for (const auto& w : warnings_of(doc))
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// `roofprof run --backend time -q -r cos [MODE] -- run_libm_calls ARGS...` (MODE "": the default).
RunResult run_cos(Sandbox& sb, const std::string& mode, const std::vector<std::string>& program_args) {
  std::vector<std::string> args{"run", "--backend", "time", "-q", "-r", "cos"};
  if (!mode.empty()) args.push_back(mode);
  args.push_back("--");
  args.push_back(fixture("run_libm_calls"));
  args.insert(args.end(), program_args.begin(), program_args.end());
  return sb.roofprof(args);
}

// cos is an IFUNC: its symbol is the resolver, which runs once. The default (combined) mode
// measures the implementation through the agent: every call, not the resolver's one.
TEST(Ifunc, DefaultModeCountsEveryCallOfTheChosenImplementation) {
  for (const char* mode : {"", "--no-ptrace"}) {
    SCOPED_TRACE(mode);
    Sandbox sb;
    auto r = run_cos(sb, mode, {"8"});
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json doc = load_result(r);
    json reg = region(doc, "cos");
    EXPECT_EQ(calls(reg), 8) << reg.dump();
    EXPECT_EQ(reg["sources"]["calls"], "agent") << reg.dump();
  }
}

// Breakpoints alone would time the resolver (1 call): the site is left out and the run says why,
// never a count of the resolver's calls.
TEST(Ifunc, BreakpointsLeaveTheResolverOutAndSaySo) {
  Sandbox sb;
  auto r = run_cos(sb, "--no-preload", {"8"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "cos")), 0);
  EXPECT_TRUE(any_warning_has(doc, "cos in libm.so.6 is an IFUNC")) << warnings_of(doc).dump(1);
}

// Debian's python3 is a non-PIE executable that takes the address of libm's functions for its
// math module: its PLT entries are their canonical addresses, and a hook whose target was such an
// entry called itself for ever (math.cos hung in the default mode, math.cbrt with --no-ptrace).
TEST(Ifunc, PythonMathThroughCanonicalPltEntries) {
  for (const char* mode : {"", "--no-ptrace"}) {
    SCOPED_TRACE(mode);
    Sandbox sb;
    std::vector<std::string> args{"run", "--backend", "time", "-q", "-r", "cos", "-r", "cbrt"};
    if (*mode) args.push_back(mode);
    for (const char* a : {"--", "/usr/bin/python3", "-c",
                          "import math; print(round(sum(math.cbrt(i) + math.cos(i) for i in range(1000)), 3))"})
      args.push_back(a);
    RunOptions ro;
    ro.timeout = 60s;
    auto r = sb.roofprof(args, ro);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_EQ(r.out, "7495.699\n");
    json doc = load_result(r);
    EXPECT_EQ(calls(region(doc, "cos")), 1000);
    EXPECT_EQ(calls(region(doc, "cbrt")), 1000);
  }
}

// A thread in seccomp strict mode may only read, write and _exit, and rdtsc (the vDSO clock)
// faults: the agent leaves it alone from then on. The program is not harmed, the calls before
// are measured, and the result says that later calls were not.
TEST(FaultSeccomp, StrictModeProgramRunsWithTheAgent) {
  for (const char* mode : {"--no-ptrace", ""}) {
    SCOPED_TRACE(mode);
    Sandbox sb;
    auto r = run_cos(sb, mode, {"5", "strict"});
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_EQ(r.out, "sandboxed\n");
    json doc = load_result(r);
    EXPECT_EQ(calls(region(doc, "cos")), 3);
    EXPECT_TRUE(any_warning_has(doc, "seccomp strict mode")) << warnings_of(doc).dump(1);
  }
}

}  // namespace
}  // namespace it
