// Span regions by file:line. The line numbers come from marker comments in the fixture source.
#include "harness.hpp"

namespace it {
namespace {

const char* kSource = "tests/fixtures/run/span.c";

TEST(RunSpan, FileLineSpanInALoop) {
  int start = line_of(kSource, "/* SPAN_START */");
  int stop = line_of(kSource, "/* SPAN_STOP */");
  ASSERT_GT(start, 0);
  ASSERT_GT(stop, start);
  std::string spec = "loop=span.c:" + std::to_string(start) + "..span.c:" + std::to_string(stop);
  Sandbox sb;
  auto r = sb.roofprof({"run", "--span", spec, "--", fixture("run_span")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "loop");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(reg["kind"], "span") << reg.dump();
  EXPECT_EQ(calls(reg), 5) << reg.dump();
  EXPECT_EQ(closed_by(reg, "span_stop"), 5) << reg.dump();
}

TEST(RunSpan, SpanFromLoopToAfterTheLoopOpensOnce) {
  // START is reached 5 times but the span is open from the first until STOP after the loop.
  int start = line_of(kSource, "/* SPAN_START */");
  int after = line_of(kSource, "/* AFTER_LOOP */");
  ASSERT_GT(after, start);
  std::string spec = "whole=span.c:" + std::to_string(start) + "..span.c:" + std::to_string(after);
  Sandbox sb;
  auto r = sb.roofprof({"run", "--span", spec, "--", fixture("run_span")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "whole");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 1) << reg.dump();
}

TEST(RunSpan, SymbolToFileLine) {
  // START is the function step (entered 5 times), STOP the line after the loop.
  int after = line_of(kSource, "/* AFTER_LOOP */");
  ASSERT_GT(after, 0);
  Sandbox sb;
  auto r = sb.roofprof({"run", "--span", "sym=step..span.c:" + std::to_string(after), "--", fixture("run_span")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "sym");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "span_stop"), 1) << reg.dump();
}

}  // namespace
}  // namespace it
