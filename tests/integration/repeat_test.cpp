// --repeat N runs the program N times and aggregates: calls triple with --repeat 3.
#include "harness.hpp"

namespace it {
namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(RunRepeat, RepeatThreeTriplesCalls) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--repeat", "3", "--region", "recurse", "--", fixture("run_recursion")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(doc["repeat"], 3);
  json reg = region(doc, "recurse");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 9) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 9) << reg.dump();
  EXPECT_EQ(reg["locations"].size(), 1u) << "a site is listed once, not once per repeat: " << reg.dump();
  EXPECT_EQ(reg["threads"], 1) << "one thread per run, not one per run summed: " << reg.dump();
}

TEST(RunRepeat, RepeatThreeRunsTheProgramThreeTimes) {
  // --backend time: no extra emulated run, so the program's output appears once per repeat.
  Sandbox sb;
  auto r = sb.roofprof(
      {"run", "--backend", "time", "--repeat", "3", "--region", "recurse", "--", fixture("run_recursion")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(count_of(r.out, "sum="), 3u) << r.diag();
  EXPECT_EQ(count_of(r.err, "roofprof: backend "), 1u) << "announced once, not once per run: " << r.diag();
  json reg = region(load_result(r), "recurse");
  EXPECT_EQ(calls(reg), 9) << reg.dump();
}

}  // namespace
}  // namespace it
