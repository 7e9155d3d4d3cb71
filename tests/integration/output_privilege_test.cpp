// Nothing lost, nothing harmed: the result path is checked before the program starts and devices
// are written in place, never replaced; an ordinary user (the tests drop to nobody) profiles with
// every backend it can at perf_event_paranoid 2.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "harness.hpp"

namespace it {
namespace {

bool nobody_can_run_roofprof() {
  // The build tree must be reachable by nobody (it is unless it lives in a private home).
  for (fs::path p = fs::path(roofprof_bin()).parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) return false;
  }
  return true;
}

#define REQUIRE_NOBODY_REACHES_THE_BUILD()                                                      \
  if (::geteuid() != 0) GTEST_SKIP() << "not root: the run below is already unprivileged";     \
  if (!nobody_can_run_roofprof())                                                               \
  GTEST_SKIP() << "the build tree " << roofprof_bin() << " is not reachable by the user nobody"

RunOptions as_nobody() {
  RunOptions ro;
  ro.unprivileged = true;
  return ro;
}

// The default mode (breakpoints + agent), breakpoints only, and the agent only: each measures
// the region, with software counters at user level and said so.
TEST(Unprivileged, EveryNativeModeMeasuresWithUserLevelCounters) {
  REQUIRE_NOBODY_REACHES_THE_BUILD();
  for (const char* mode : {"--preload", "--no-preload", "--no-ptrace"}) {
    SCOPED_TRACE(mode);
    Sandbox sb;
    auto r = sb.roofprof({"run", mode, "--backend", "time", "--region", "pre_touch", "--", fixture("pre_app"), "pages",
                          "64"},
                         as_nobody());
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    EXPECT_EQ(r.out, "touched=2016\n");
    EXPECT_NE(r.err.find("software counters at user level only"), std::string::npos) << r.diag();
    json doc = load_result(r);
    json reg = region(doc, "pre_touch");
    EXPECT_EQ(calls(reg), 1) << reg.dump();
    EXPECT_GT(counter(reg, "task-clock"), 0) << reg.dump();
    EXPECT_GE(counter(reg, "page-faults:u"), 64) << reg.dump();
    EXPECT_LT(counter(reg, "page-faults:u"), 64 + 32) << reg.dump();
    EXPECT_FALSE(reg["counters"].contains("context-switches")) << "not countable at user level: " << reg.dump();
    EXPECT_NE(doc["warnings"].dump().find("user level only"), std::string::npos) << doc["warnings"].dump();
  }
}

TEST(Unprivileged, EmulationGivesExactWork) {
  REQUIRE_NOBODY_REACHES_THE_BUILD();
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "-q", "--region", "daxpy", "--",
                        fixture("emul_kernels_O2"), "counts"},
                       as_nobody());
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json daxpy = region(load_result(r), "daxpy");
  EXPECT_EQ(calls(daxpy), 2);
  EXPECT_DOUBLE_EQ(daxpy["flops"].get<double>(), 2.0 * (1000 + 1003)) << daxpy.dump();
}

TEST(Unprivileged, ContextSwitchesAskedForAreRefusedWithTheReason) {
  REQUIRE_NOBODY_REACHES_THE_BUILD();
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-e", "context-switches", "--region", "pre_work", "--",
                        fixture("pre_app"), "calls", "3"},
                       as_nobody());
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find("perf_event_paranoid"), std::string::npos) << r.diag();
  EXPECT_TRUE(r.out.empty()) << "the program must not run" << r.diag();
}

TEST(Unprivileged, DoctorSaysWhatAnOrdinaryUserGets) {
  REQUIRE_NOBODY_REACHES_THE_BUILD();
  Sandbox sb;
  auto r = sb.roofprof({"doctor"}, as_nobody());
  EXPECT_NE(r.out.find("usable at user level only"), std::string::npos) << r.diag();
}

TEST(Unprivileged, UnwritableOutputDirectoryFailsBeforeTheProgramRuns) {
  REQUIRE_NOBODY_REACHES_THE_BUILD();
  Sandbox sb;
  const fs::path locked = sb.path("locked");  // root's, 0755: nobody cannot create files in it
  fs::create_directory(locked);
  ::chmod(locked.c_str(), 0755);
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "pre_work", "-o", (locked / "r.json").string(), "--",
                        fixture("pre_app"), "calls", "3"},
                       as_nobody());
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find("is not writable (Permission denied)"), std::string::npos) << r.diag();
  EXPECT_TRUE(r.out.empty()) << "the program must not run before the result path is checked" << r.diag();
}

TEST(OutputPath, MissingDirectoryFailsBeforeTheProgramRuns) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "pre_work", "-o", "no/such/dir/r.json", "--",
                        fixture("pre_app"), "calls", "3"});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find("directory 'no/such/dir' does not exist"), std::string::npos) << r.diag();
  EXPECT_TRUE(r.out.empty()) << "the program must not run" << r.diag();
}

// A device named with -o is written, never replaced by a regular file or moved to .old (as root,
// the old code turned /dev/null into a JSON file). A device node of our own stands in for
// /dev/null, so that a regression cannot damage the machine running the tests.
TEST(OutputPath, DeviceIsWrittenInPlace) {
  Sandbox sb;
  const fs::path dev = sb.path("null");
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod not permitted here";
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--region", "pre_work", "-o", dev.string(), "--",
                        fixture("pre_app"), "calls", "3"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_TRUE(fs::is_character_file(dev)) << "the device was replaced";
  EXPECT_FALSE(fs::exists(dev.string() + ".old"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(OutputPath, DashWritesTheResultToStdout) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--region", "pre_work", "-o", "-", "--", fixture("pre_app"),
                        "calls", "3"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const std::string program_line = "sum=";
  ASSERT_EQ(r.out.rfind(program_line, 0), 0u) << r.diag();
  json doc = json::parse(r.out.substr(r.out.find('\n') + 1));
  EXPECT_EQ(calls(region(doc, "pre_work")), 3);
  EXPECT_FALSE(fs::exists(sb.path("-")));
}

}  // namespace
}  // namespace it
