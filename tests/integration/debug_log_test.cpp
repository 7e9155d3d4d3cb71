// ROOFPROF_LOG / ROOFPROF_LOG_FILE (common/log.hpp, common/log_format.h, preload/agent/log.c).
#include "harness.hpp"

namespace it {
namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(DebugLog, TracerLogsEveryStopAndResume) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--no-preload", "--region", "pre_work", "--",
                        fixture("pre_app"), "calls", "3"},
                       {.env = {{"ROOFPROF_LOG", "tracer"}}});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  // 3 calls through a breakpoint: at least an entry and a return stop each, each resumed.
  EXPECT_GE(count_of(r.err, "] tracer: stop "), 6u) << r.diag();
  EXPECT_GE(count_of(r.err, "] tracer: resume "), 6u) << r.diag();
  EXPECT_NE(r.err.find(": exited with status 0"), std::string::npos) << "the program's exit is a logged stop" << r.diag();
  EXPECT_EQ(r.err.find("] counters: "), std::string::npos) << "only the category asked for" << r.diag();
}

TEST(DebugLog, RoofprofAndItsAgentAppendToOneFile) {
  Sandbox sb;
  const std::string file = sb.path("roofprof.log").string();
  auto r = sb.roofprof({"run", "--backend", "time", "-q", "--no-ptrace", "--region", "pre_work", "--",
                        fixture("pre_app"), "calls", "3"},
                       {.env = {{"ROOFPROF_LOG", "counters,agent"}, {"ROOFPROF_LOG_FILE", file}}});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.err.find("agent: "), std::string::npos) << "the log went to the file, not stderr" << r.diag();
  const std::string log = read_text(file);
  EXPECT_NE(log.find("roofprof-agent["), std::string::npos) << log;
  EXPECT_NE(log.find("] agent: on: 1 patterns"), std::string::npos) << log;
  EXPECT_NE(log.find("] agent: pre_work in "), std::string::npos) << "the hook decision" << log;
  EXPECT_EQ(log.find("] tracer: "), std::string::npos) << log;
}

TEST(DebugLog, UnknownCategoryIsAOneLineError) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "pre_work", "--", fixture("pre_app"), "calls", "1"},
                       {.env = {{"ROOFPROF_LOG", "tracer,ptrace"}}});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find("ROOFPROF_LOG: unknown category 'ptrace'"), std::string::npos) << r.diag();
  EXPECT_TRUE(r.out.empty()) << "the program should not have run" << r.diag();
}

}  // namespace
}  // namespace it
