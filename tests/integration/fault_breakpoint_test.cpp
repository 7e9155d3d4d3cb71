// Fault suite: regions on code that is not called (entry points, PLT and
// TLS trampolines, clone) are refused with a one-line reason, and globs leave such code alone.
#include "harness.hpp"

namespace it {
namespace {

void expect_refused(const std::string& name) {
  SCOPED_TRACE(name);
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-r", name, "--", fixture("run_threads"), "1"});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find("cannot be measured"), std::string::npos) << r.diag();
  EXPECT_EQ(r.err.find("scratch"), std::string::npos) << r.diag();
}

TEST(FaultBreakpoint, EntryPointsAndTrampolinesAreRefused) {
  expect_refused("_start");
  expect_refused("_dl_runtime_resolve_xsavec");
}

// '_*' matches _start, _dl_runtime_resolve_* and more: the program runs as without roofprof.
TEST(FaultBreakpoint, UnderscoreGlobHarmsNothing) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "-r", "_*", "--", fixture("run_threads"), "3"},
                       RunOptions{.timeout = 120s});
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "done 3\n") << r.diag();
  json doc = load_result(r);
  EXPECT_TRUE(doc["term_signal"].is_null()) << doc["term_signal"];
}

}  // namespace
}  // namespace it
