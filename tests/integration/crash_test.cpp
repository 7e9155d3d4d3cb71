// A program that segfaults inside a region: the result is still written, the signal is
// reported, and roofprof exits 128+11 like a shell would show it.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunCrash, SegfaultInsideRegion) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "crasher", "--", fixture("run_crash")});
  EXPECT_EQ(r.exit_code(), 139) << r.diag();
  EXPECT_NE(r.out.find("before 42"), std::string::npos) << r.diag();
  EXPECT_NE(r.err.find("roofprof: program killed by SIGSEGV\n"), std::string::npos) << r.diag();
  json doc = load_result(r);
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["term_signal"], 11) << doc.dump(1);
  EXPECT_TRUE(doc["exit_status"].is_null()) << doc.dump(1);
  json reg = region(doc, "crasher");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 2) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "crash"), 1) << reg.dump();
}

TEST(RunCrash, AbortInsideRegion) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "aborter", "--", fixture("run_crash"), "abort"});
  EXPECT_EQ(r.exit_code(), 134) << r.diag();
  json doc = load_result(r);
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["term_signal"], 6) << doc.dump(1);
  json reg = region(doc, "aborter");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 1) << reg.dump();
  EXPECT_EQ(closed_by(reg, "crash"), 1) << reg.dump();
}

}  // namespace
}  // namespace it
