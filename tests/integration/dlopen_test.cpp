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
}

}  // namespace
}  // namespace it
