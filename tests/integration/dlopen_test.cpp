// A region in a library loaded with dlopen after the program started.
#include "harness.hpp"

namespace it {
namespace {

TEST(RunDlopen, SymbolInLibraryLoadedLater) {
  Sandbox sb;
  std::string lib = fixture("librun_dlplug.so");
  ASSERT_TRUE(fs::exists(lib)) << lib;
  auto r = sb.roofprof({"run", "--region", "plugin_work", "--", fixture("run_dlopen_app"), lib});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  json reg = region(doc, "plugin_work");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 5) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 5) << reg.dump();
  ASSERT_TRUE(reg["locations"].is_array() && !reg["locations"].empty()) << reg.dump();
  EXPECT_NE(reg["locations"][0]["module"].get<std::string>().find("librun_dlplug.so"), std::string::npos)
      << reg.dump();
  // "Not found yet" at start, found later: nothing of it is left in the result.
  EXPECT_NE(r.err.find("not found yet"), std::string::npos) << r.diag();
  EXPECT_EQ(plain_warnings(doc).size(), 0u) << doc["warnings"].dump(1);
}

// Never found (the program can dlopen, so no error at start) is not "found, never called"; once
// the program has ended it is the error an unknown name is in a program that cannot dlopen
// (exit status 2, the closest names), after the result is written.
TEST(RunDlopen, NeverFoundIsNotFoundNeverCalled) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "no_such_function", "--region", "plugin_work",
                        "--", fixture("run_dlopen_app"), fixture("librun_dlplug.so")});
  ASSERT_EQ(r.exit_code(), 2) << r.diag();
  auto err_lines = lines(r.err);
  ASSERT_FALSE(err_lines.empty());
  EXPECT_EQ(err_lines.back().rfind("roofprof: unknown region 'no_such_function': no function 'no_such_function'", 0),
            0u)
      << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "plugin_work")), 5);
  EXPECT_EQ(calls(region(doc, "no_such_function")), 0);
  EXPECT_NE(doc["warnings"].dump().find("region 'no_such_function' never found"), std::string::npos)
      << doc["warnings"].dump(1);
  EXPECT_NE(r.err.find("no_such_function (function): never found"), std::string::npos) << r.diag();
}

}  // namespace
}  // namespace it
