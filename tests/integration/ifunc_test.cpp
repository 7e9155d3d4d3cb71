// Functions the dynamic linker resolves at run time (IFUNC: libm's cos, libc's memcpy), and a
// program that enters seccomp strict mode (fault suite, issue 18 item 10) with the agent loaded.
#include "harness.hpp"

namespace it {
namespace {

json warnings_of(const json& doc) { return doc.value("warnings", json::array()); }

bool any_warning_has(const json& doc, const std::string& text) {
  for (const auto& w : warnings_of(doc))
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// cos is an IFUNC: its symbol is the resolver, which runs once. The default (combined) mode
// measures the implementation through the agent: every call, not the resolver's one.
TEST(Ifunc, DefaultModeCountsEveryCallOfTheChosenImplementation) {
  for (const char* mode : {"", "--no-ptrace"}) {
    SCOPED_TRACE(mode);
    Sandbox sb;
    std::vector<std::string> args{"run", "--backend", "time", "-q", "-r", "cos"};
    if (*mode) args.push_back(mode);
    for (const std::string& a : {std::string("--"), fixture("run_libm_calls"), std::string("8")}) args.push_back(a);
    auto r = sb.roofprof(args);
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
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--no-preload", "-r", "cos", "--",
                        fixture("run_libm_calls"), "8"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "cos")), 0);
  EXPECT_TRUE(any_warning_has(doc, "cos in libm.so.6 is an IFUNC")) << warnings_of(doc).dump(1);
}

// A thread in seccomp strict mode may only read, write and _exit, and rdtsc (the vDSO clock)
// faults: the agent leaves it alone from then on. The program is not harmed, the calls before
// are measured, and the result says that later calls were not.
TEST(FaultSeccomp, StrictModeProgramRunsWithTheAgent) {
  for (const char* mode : {"--no-ptrace", ""}) {
    SCOPED_TRACE(mode);
    Sandbox sb;
    std::vector<std::string> args{"run", "--backend", "time", "-q", "-r", "cos"};
    if (*mode) args.push_back(mode);
    for (const std::string& a : {std::string("--"), fixture("run_libm_calls"), std::string("5"), std::string("strict")})
      args.push_back(a);
    auto r = sb.roofprof(args);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_EQ(r.out, "sandboxed\n");
    json doc = load_result(r);
    EXPECT_EQ(calls(region(doc, "cos")), 3);
    EXPECT_TRUE(any_warning_has(doc, "seccomp strict mode")) << warnings_of(doc).dump(1);
  }
}

}  // namespace
}  // namespace it
