// What the program sees and does passes through roofprof: signals, stdin, stdout, the
// environment and the exit status.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunPassthrough, SignalsStdioEnvironmentAndExitStatus) {
  Sandbox sb;
  RunOptions ro;
  ro.env["ROOFPROF_IT_VAR"] = "hello world";
  ro.stdin_text = "line from stdin\n";
  auto r = sb.roofprof({"run", "--region", "signal_region", "--", fixture("run_passthru"), "3"}, ro);
  EXPECT_EQ(r.exit_code(), 3) << r.diag();
  EXPECT_NE(r.out.find("handled=1 in_region=1"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find("env=hello world"), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find("stdin=line from stdin"), std::string::npos) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["exit_status"], 3) << doc.dump(1);
  EXPECT_TRUE(doc["term_signal"].is_null()) << doc.dump(1);
  json reg = region(doc, "signal_region");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 1) << reg.dump();
}

TEST(RunPassthrough, ExitStatusZero) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "signal_region", "--", fixture("run_passthru"), "0"});
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
}

}  // namespace
}  // namespace it
