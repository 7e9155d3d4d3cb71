#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "fixture_paths.hpp"
#include "regions/spec.hpp"
#include "symbolizer/debug_file.hpp"
#include "symbolizer/elf_handle.hpp"
#include "symbolizer/line_table.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::symbolizer {
namespace {

using test::fixture;
using test::symbols_named;

// Line numbers of the "MARK:name" comments in lines.c.
std::map<std::string, unsigned> marks() {
  std::ifstream in(std::string(SOURCE_DIR) + "/tests/fixtures/symbolizer/lines.c");
  std::map<std::string, unsigned> out;
  std::string text;
  for (unsigned n = 1; std::getline(in, text); ++n) {
    size_t at = text.find("MARK:");
    if (at == std::string::npos) continue;
    size_t end = text.find_first_of(" */", at);
    out[text.substr(at + 5, end - at - 5)] = n;
  }
  return out;
}

class Lines : public ::testing::Test {
 protected:
  std::map<std::string, unsigned> mark = marks();
  std::shared_ptr<ElfFile> elf = ElfFile::open(fixture("sym_lines"));
  std::string at(unsigned line) { return "lines.c:" + std::to_string(line); }
};

TEST_F(Lines, MarksFound) {
  for (const char* m : {"work_open", "acc", "loop", "body", "no_code", "ret"}) EXPECT_TRUE(mark.count(m)) << m;
  EXPECT_TRUE(elf->has_line_info());
}

TEST_F(Lines, FunctionOpeningLineIsItsEntry) {
  auto addrs = elf->line_addresses("lines.c", mark["work_open"]);
  EXPECT_EQ(addrs, std::vector<uint64_t>{symbols_named(*elf, "lines_work")[0]->value});
}

TEST_F(Lines, StatementLinesRoundTrip) {
  for (const char* m : {"acc", "body", "ret"}) {
    unsigned used = 0;
    auto addrs = elf->line_addresses("lines.c", mark[m], &used);
    ASSERT_EQ(addrs.size(), 1u) << m;  // -O0: one run each
    EXPECT_EQ(used, mark[m]);
    EXPECT_EQ(elf->source_of(addrs[0]), at(mark[m])) << m;
    EXPECT_EQ(elf->function_at(addrs[0])->name, "lines_work");
  }
}

TEST_F(Lines, LoopHeaderHasSeveralRuns) {
  // -O0 for loop: init, then increment and condition after the body.
  auto addrs = elf->line_addresses("lines.c", mark["loop"]);
  ASSERT_EQ(addrs.size(), 2u);
  auto body = elf->line_addresses("lines.c", mark["body"]);
  EXPECT_LT(addrs[0], body[0]);
  EXPECT_GT(addrs[1], body[0]);
  for (uint64_t a : addrs) EXPECT_EQ(elf->source_of(a), at(mark["loop"]));
}

TEST_F(Lines, LineWithoutCodeUsesTheNextOne) {
  unsigned used = 0;
  auto addrs = elf->line_addresses("lines.c", mark["no_code"], &used);
  EXPECT_EQ(used, mark["ret"]);
  EXPECT_EQ(addrs, elf->line_addresses("lines.c", mark["ret"]));
}

TEST_F(Lines, FileMatchesOnWholeTrailingComponents) {
  unsigned line = mark["body"];
  auto want = elf->line_addresses("lines.c", line);
  EXPECT_EQ(elf->line_addresses("symbolizer/lines.c", line), want);
  EXPECT_EQ(elf->line_addresses("fixtures/./symbolizer/lines.c", line), want);
  // sym_lines names its sources under FIXTURE_SOURCE_ROOT, not this tree (tests/CMakeLists.txt).
  EXPECT_EQ(elf->line_addresses(FIXTURE_SOURCE_ROOT "/tests/fixtures/symbolizer/lines.c", line), want);
  EXPECT_TRUE(elf->line_addresses("ines.c", line).empty());
  EXPECT_TRUE(elf->line_addresses("other/lines.c", line).empty());
  EXPECT_TRUE(elf->line_addresses("nosuch.c", line).empty());
}

TEST_F(Lines, PastTheEndOfTheFile) {
  unsigned used = 99;
  EXPECT_TRUE(elf->line_addresses("lines.c", 100000, &used).empty());
  EXPECT_EQ(used, 0u);
}

TEST_F(Lines, SourceOfOutsideCode) {
  EXPECT_EQ(elf->source_of(0), std::nullopt);
  EXPECT_EQ(elf->source_of(symbols_named(*elf, "lines_work")[0]->value), at(mark["work_open"]));
}

TEST_F(Lines, ResolveFileLine) {
  regions::Location loc;
  loc.kind = regions::Location::Kind::FileLine;
  loc.file = "lines.c";
  loc.line = mark["body"];
  auto sites = resolve_location(loc, *elf);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].module, fixture("sym_lines"));
  EXPECT_EQ(sites[0].address, elf->line_addresses("lines.c", mark["body"])[0]);
  EXPECT_EQ(sites[0].symbol, "");
}

// ".." resolved against what comes before it: a line table's relative file name under its
// DW_AT_comp_dir ends with the file's absolute path.
TEST(PathComponents, DotDotIsResolvedAgainstWhatComesBefore) {
  using V = std::vector<std::string>;
  EXPECT_EQ(path_components("/w/b/t/f/../../../src/x.c"), (V{"w", "src", "x.c"}));
  EXPECT_EQ(path_components("/w/b/./t/..//src/x.c"), (V{"w", "b", "src", "x.c"}));
  EXPECT_EQ(path_components("/../x.c"), (V{"x.c"}));
  EXPECT_EQ(path_components("../../src/x.c"), (V{"..", "..", "src", "x.c"}));
  EXPECT_EQ(path_components("a/../../x.c"), (V{"..", "x.c"}));
  EXPECT_EQ(path_components("x.c"), (V{"x.c"}));
}

// sym_lines_relative was compiled as `cc ../../../tests/fixtures/symbolizer/lines.c` in the
// fixtures' directory (as ccache's base_dir compiles): its line table names lines.c relative to
// DW_AT_comp_dir, and the file's absolute path finds its lines.
TEST(LinesOfARelativeCompile, TheAbsolutePathFindsThem) {
  auto elf = ElfFile::open(fixture("sym_lines_relative"));
  const unsigned line = marks()["body"];
  const auto want = elf->line_addresses("lines.c", line);
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(elf->line_addresses(std::string(SOURCE_DIR) + "/tests/fixtures/symbolizer/lines.c", line), want);
  EXPECT_EQ(elf->line_addresses("tests/fixtures/../fixtures/symbolizer/lines.c", line), want);
  EXPECT_TRUE(elf->line_addresses("/elsewhere/tests/fixtures/symbolizer/lines.c", line).empty());
}

TEST(LinesWithoutDwarf, EmptyAnswers) {
  auto elf = ElfFile::open(fixture("sym_plain_stripped"));
  EXPECT_FALSE(elf->has_line_info());
  EXPECT_TRUE(elf->line_addresses("plain.c", 5).empty());
  EXPECT_EQ(elf->source_of(elf->entry()), std::nullopt);
}

}  // namespace
}  // namespace roofprof::symbolizer

namespace roofprof::symbolizer {
namespace {

TEST(SeparateDebugFile, FoundThroughDebuglink) {
  auto full = ElfFile::open(test::fixture("sym_lines"));
  auto split = ElfFile::open(test::fixture("sym_lines_split"));
  // The stripped file alone has neither; they come from sym_lines_split.debug.
  ASSERT_EQ(test::symbols_named(*split, "lines_work").size(), 1u);
  EXPECT_EQ(test::symbols_named(*split, "lines_work")[0]->value, test::symbols_named(*full, "lines_work")[0]->value);
  EXPECT_TRUE(split->has_line_info());
  for (unsigned line = 1; line < 20; ++line) {
    unsigned used_full = 0, used_split = 0;
    EXPECT_EQ(split->line_addresses("lines.c", line, &used_split), full->line_addresses("lines.c", line, &used_full));
    EXPECT_EQ(used_split, used_full);
  }
  EXPECT_EQ(split->functions().size(), full->functions().size());
}

TEST(SeparateDebugFile, AbsentMeansNoLines) {
  auto plain = ElfFile::open(test::fixture("sym_plain_stripped"));
  EXPECT_FALSE(plain->has_line_info());
}

TEST(SeparateDebugFile, BuildIdLookupComesFirst) {
  ElfHandle split(test::fixture("sym_lines_split"));
  std::string id = build_id(split.elf());
  ASSERT_EQ(id.size(), 40u);  // sha1
  EXPECT_EQ(id, build_id(ElfHandle(test::fixture("sym_lines")).elf()));

  std::string root = ::testing::TempDir() + "roofprof_sym_debug_root";
  std::string dir = root + "/.build-id/" + id.substr(0, 2);
  std::filesystem::create_directories(dir);
  std::string by_id = dir + "/" + id.substr(2) + ".debug";
  std::filesystem::remove(by_id);
  EXPECT_EQ(find_debug_file(split.elf(), test::fixture("sym_lines_split"), root),
            test::fixture("sym_lines_split.debug"));  // through .gnu_debuglink
  std::filesystem::copy_file(test::fixture("sym_lines_split.debug"), by_id);
  EXPECT_EQ(find_debug_file(split.elf(), test::fixture("sym_lines_split"), root), by_id);
  // A debug file of another build is ignored.
  std::filesystem::remove(by_id);
  std::filesystem::copy_file(test::fixture("sym_plain_pie"), by_id);
  EXPECT_EQ(find_debug_file(split.elf(), test::fixture("sym_lines_split"), root),
            test::fixture("sym_lines_split.debug"));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace roofprof::symbolizer
