// Stripped binaries: an exported function of a stripped shared library, and a function of a
// stripped executable built with -rdynamic (both only in .dynsym).
#include "harness.hpp"

namespace it {
namespace {

// A stripped ELF file has no .symtab section (its name would be in .shstrtab).
bool has_symtab(const std::string& path) { return read_text(path).find(".symtab") != std::string::npos; }

TEST(RunStripped, ExportedFunctionOfStrippedLibrary) {
  ASSERT_FALSE(has_symtab(fixture("libstriplib.so"))) << "fixture library is not stripped";
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "strip_lib_work", "--", fixture("run_striplib_app")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "strip_lib_work");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 4) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 4) << reg.dump();
}

TEST(RunStripped, StrippedRdynamicExecutable) {
  ASSERT_FALSE(has_symtab(fixture("run_stripped_exe"))) << "fixture executable is not stripped";
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "exe_work", "--", fixture("run_stripped_exe")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "exe_work");
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(calls(reg), 6) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 6) << reg.dump();
}

}  // namespace
}  // namespace it
