// common/log.hpp and the contract it shares with the agent (common/log_format.h).
#include "common/log.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>

#include "common/error.hpp"
#include "common/temp_dir.hpp"

namespace roofprof::log {
namespace {

TEST(LogParse, CategoriesAndAll) {
  EXPECT_EQ(parse("tracer", nullptr).mask, RP_LOG_TRACER);
  EXPECT_EQ(parse("counters,emul", nullptr).mask, RP_LOG_COUNTERS | RP_LOG_EMUL);
  EXPECT_EQ(parse("agent,,tracer,", nullptr).mask, RP_LOG_AGENT | RP_LOG_TRACER);
  EXPECT_EQ(parse("all", nullptr).mask, RP_LOG_ALL);
  EXPECT_EQ(parse("", nullptr).mask, 0u);
  EXPECT_EQ(parse(nullptr, nullptr).mask, 0u);
  EXPECT_EQ(parse("emul", "/tmp/x.log").file, "/tmp/x.log");
}

TEST(LogParse, UnknownCategoryIsAUserErrorNamingIt) {
  try {
    parse("tracer,ptrace,emul", nullptr);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "ROOFPROF_LOG: unknown category 'ptrace'; the categories are tracer, counters, agent, emul and all "
              "(comma-separated)");
  }
  EXPECT_THROW(parse("Tracer", nullptr), UserError);  // case matters
}

TEST(LogParse, SharedParserPointsAtTheBadWord) {
  unsigned mask = 0;
  const char* bad = nullptr;
  size_t len = 0;
  const char* spec = "emul,agnet,tracer";
  EXPECT_EQ(rp_log_parse(spec, &mask, &bad, &len), -1);
  EXPECT_EQ(bad, spec + 5);
  EXPECT_EQ(len, 5u);
}

TEST(LogFormat, OneLineWithWhoPidAndCategory) {
  char buf[64];
  const std::string text = "resume 12 continue signal 0";
  const uint64_t at = 12'000'345'678;  // 12.000345678 s: microseconds, zero-padded
  size_t n = rp_log_format(buf, sizeof buf, at, "roofprof", 42, RP_LOG_TRACER, text.data(), text.size());
  EXPECT_EQ(std::string(buf, n), "12.000345 roofprof[42] tracer: resume 12 continue signal 0\n");
  char small[26];
  n = rp_log_format(small, sizeof small, at, "roofprof", 42, RP_LOG_EMUL, text.data(), text.size());
  EXPECT_EQ(std::string(small, n), "12.000345 roofprof[42] e\n");  // cut to fit, still one line
  EXPECT_STREQ(rp_log_category_name(RP_LOG_COUNTERS), "counters");
  EXPECT_STREQ(rp_log_category_name(3), "?");
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LogSink, AppendsOnlyTheCategoriesAsked) {
  TempDir dir("roofprof-log-test", "the log test's files");
  const std::string file = dir.path() + "/log";
  { std::ofstream(file) << "before\n"; }
  {
    Sink sink(parse("tracer,emul", file.c_str()));
    EXPECT_TRUE(sink.on(Category::Tracer));
    EXPECT_FALSE(sink.on(Category::Counters));
    sink.write(Category::Tracer, "stop 7: exited 0");
    sink.write(Category::Counters, "perf_event_open");
    sink.write(Category::Emul, "launch valgrind");
  }
  const std::string pid = std::to_string(getpid());
  // Each line: the monotonic time it was written, then who, the category and the text.
  const std::regex expected("before\n([0-9]+)\\.[0-9]{6} roofprof\\[" + pid + "\\] tracer: stop 7: exited 0\n" +
                            "([0-9]+)\\.[0-9]{6} roofprof\\[" + pid + "\\] emul: launch valgrind\n");
  const std::string log = read_all(file);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(log, m, expected)) << log;
  const uint64_t now_s = rp_log_now_ns() / 1'000'000'000u;
  EXPECT_LE(std::stoull(m[1]), std::stoull(m[2]));
  EXPECT_LE(std::stoull(m[2]), now_s);
  EXPECT_GE(std::stoull(m[1]) + 60, now_s);
}

TEST(LogSink, UnopenableFileIsAUserError) {
  EXPECT_THROW(Sink(parse("tracer", "/nonexistent-dir/roofprof.log")), UserError);
  EXPECT_NO_THROW(Sink(parse("", "/nonexistent-dir/roofprof.log")));  // off: nothing opened
}

TEST(LogProcess, OffUntilConfigured) {
  // Nothing in this test binary configures the process's log: every category is off.
  EXPECT_FALSE(on(Category::Tracer));
  EXPECT_FALSE(on(Category::Agent));
}

}  // namespace
}  // namespace roofprof::log
