// Stripped binaries: an exported function of a stripped shared library, and a function of a
// stripped executable built with -rdynamic (both only in .dynsym).
#include <algorithm>

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

namespace it {
namespace {

// run_split_debug: stripped; its debug file is split_debug/run_split_debug.debug (the name its
// .gnu_debuglink gives), where no standard lookup finds it. Each test gives roofprof a debug
// directory of its own (ROOFPROF_DEBUG_DIRS) and no debuginfod server.
class SplitDebug : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(has_symtab(program)) << "fixture executable is not stripped";
    fs::create_directories(root);
  }
  std::string build_id() const {
    // The note's descriptor is the last 20 bytes of .note.gnu.build-id: read through readelf.
    Sandbox tool;
    auto r = tool.run({"/bin/sh", "-c", "readelf -n '" + program + "' | sed -n 's/.*Build ID: //p'"});
    std::string id = r.out.substr(0, r.out.find('\n'));
    EXPECT_EQ(id.size(), 40u) << r.diag();
    return id;
  }
  std::string debug_file() const { return fixture("split_debug/run_split_debug.debug"); }
  RunOptions env(std::map<std::string, std::string> more = {}) const {
    RunOptions ro;
    ro.env = {{"ROOFPROF_DEBUG_DIRS", root.string()}, {"DEBUGINFOD_URLS", ""}};
    for (auto& [k, v] : more) ro.env[k] = v;
    return ro;
  }
  // W and calls of dbg_scale, measured by emulation, and by the default backend.
  void expect_exact_work(const RunOptions& ro) {
    auto r = sb.roofprof({"run", "-r", "dbg_scale", "--backend", "emul", "--no-cache-sim", "--", program}, ro);
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    json reg = region(load_result(r), "dbg_scale");
    ASSERT_FALSE(reg.is_null()) << r.diag();
    EXPECT_EQ(calls(reg), 5) << reg.dump();
    EXPECT_EQ(reg["flops"].get<double>(), 10000.0) << reg.dump();
    EXPECT_EQ(reg["sources"]["flops"], "emul");
    auto n = sb.roofprof({"run", "-r", "dbg_scale", "-o", "native.json", "--", program}, ro);
    ASSERT_EQ(n.exit_code(), 0) << n.diag();
    json doc = load_result(n, "native.json");
    if (doc["backend"] != "native") return;  // a PMU's counts are not exact
    EXPECT_EQ(region(doc, "dbg_scale")["flops"].get<double>(), 10000.0) << doc.dump();
  }

  Sandbox sb;
  fs::path root = sb.path("debug-root");
  std::string program = fixture("run_split_debug");
};

TEST_F(SplitDebug, WithoutItsDebugFileTheRunSaysStrippedAndWhatToInstall) {
  auto r = sb.roofprof({"run", "-r", "dbg_scale", "--", program}, env());
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  std::string id = build_id();
  EXPECT_NE(r.err.find("roofprof: unknown region 'dbg_scale': no function 'dbg_scale' in the executable"),
            std::string::npos) << r.diag();
  EXPECT_NE(r.err.find("; run_split_debug has no symbol table (stripped: none of its functions has a name) and its "
                       "debug file was not found (looked for " + root.string() + "/.build-id/" + id.substr(0, 2) +
                       "/" + id.substr(2) + ".debug and run_split_debug.debug (its .gnu_debuglink)); install the "
                       "-dbgsym package of the package that installed it"),
            std::string::npos) << r.diag();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.diag();  // one line
}

TEST_F(SplitDebug, FoundByBuildIdUnderTheDebugDirectory) {
  std::string id = build_id();
  fs::create_directories(root / ".build-id" / id.substr(0, 2));
  fs::copy_file(debug_file(), root / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug"));
  expect_exact_work(env());
}

TEST_F(SplitDebug, FoundByDebuglinkUnderTheDebugDirectoryWhenItsCrcMatches) {
  fs::path dir = root.string() + fs::path(program).parent_path().string();
  fs::create_directories(dir);
  fs::copy_file(debug_file(), dir / "run_split_debug.debug");
  expect_exact_work(env());
  // The same file one byte longer: its build-id is the program's, its CRC32 is not the link's.
  {
    std::ofstream(dir / "run_split_debug.debug", std::ios::app | std::ios::binary) << '\0';
  }
  auto r = sb.roofprof({"run", "-r", "dbg_scale", "--", program}, env());
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_NE(r.err.find("run_split_debug has no symbol table"), std::string::npos) << r.diag();
}

TEST_F(SplitDebug, AskedOfDebuginfodWhenItIsConfigured) {
  // A debuginfod-find that answers as the real one does (the path of the downloaded file) for
  // this build-id only.
  std::string id = build_id();
  fs::path bin = sb.path("bin");
  fs::create_directories(bin);
  {
    std::ofstream script(bin / "debuginfod-find");
    script << "#!/bin/sh\n[ \"$1\" = debuginfo ] && [ \"$2\" = " << id << " ] && echo '" << debug_file()
           << "' && exit 0\necho 'Server query failed: No such file or directory' >&2\nexit 1\n";
  }
  fs::permissions(bin / "debuginfod-find", fs::perms::owner_all);
  const std::string path = bin.string() + ":" + std::getenv("PATH");
  expect_exact_work(env({{"DEBUGINFOD_URLS", "http://debuginfod.invalid"}, {"PATH", path}}));

  fs::remove(bin / "debuginfod-find");
  auto r = sb.roofprof({"run", "-r", "dbg_scale", "--", program},
                       env({{"DEBUGINFOD_URLS", "http://debuginfod.invalid"}, {"PATH", path}}));
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  const bool installed = sb.run({"/bin/sh", "-c", "command -v debuginfod-find"}).exit_code() == 0;
  EXPECT_NE(r.err.find(installed ? "debuginfod (http://debuginfod.invalid) has no debug file for build-id " + id
                                 : "DEBUGINFOD_URLS is set but debuginfod-find is not installed (Debian: apt install "
                                   "debuginfod)"),
            std::string::npos) << r.diag();
}

TEST_F(SplitDebug, SymbolsSaysStrippedAndListsTheDebugFilesNames) {
  auto r = sb.roofprof({"symbols", "-m", "dbg_scale", "--", program}, env());
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out, "") << r.diag();
  EXPECT_NE(r.err.find("roofprof: note: run_split_debug has no symbol table (stripped: none of its functions has a "
                       "name)"),
            std::string::npos) << r.diag();
  std::string id = build_id();
  fs::create_directories(root / ".build-id" / id.substr(0, 2));
  fs::copy_file(debug_file(), root / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug"));
  auto found = sb.roofprof({"symbols", "-m", "dbg_scale", "--", program}, env());
  EXPECT_EQ(found.exit_code(), 0) << found.diag();
  EXPECT_NE(found.out.find("  dbg_scale\n"), std::string::npos) << found.diag();
  EXPECT_EQ(found.err.find("no symbol table"), std::string::npos) << found.diag();
}

TEST_F(SplitDebug, SurveySaysWhyItsTimeIsUnknownInTheProgram) {
  auto r = sb.roofprof({"survey", "--", program, "60000"}, env());
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("[unknown in run_split_debug]"), std::string::npos) << r.diag();
  EXPECT_NE(r.err.find("roofprof: warning: [unknown in run_split_debug] "), std::string::npos) << r.diag();
  EXPECT_NE(r.err.find(" % of the samples: run_split_debug has no symbol table (stripped"), std::string::npos)
      << r.diag();
}

}  // namespace
}  // namespace it
