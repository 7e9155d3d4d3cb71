#include "common/command_line.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace roofprof {
namespace {

const std::vector<OptionShape> kShapes = {
    {{"--region", "-r"}, true, true},
    {{"--output", "-o"}, true, false},
    {{"--quiet", "-q"}, false, false},
    {{"--preload", "--no-preload"}, false, false},
};

using V = std::vector<std::string>;

TEST(SplitCommandLine, SeparatorEndsOptionsEvenAfterAMultiValueOption) {
  auto s = split_command_line({"-r", "f", "--", "./app", "-n", "--", "-o", "x"}, kShapes, "roofprof run");
  EXPECT_EQ(s.options, (V{"-r", "f"}));
  EXPECT_EQ(s.program, (V{"./app", "-n", "--", "-o", "x"}));
}

TEST(SplitCommandLine, MultiValueTakesSeveralOnlyBeforeASeparator) {
  auto with = split_command_line({"--region", "f", "g", "--", "./app"}, kShapes, "roofprof run");
  EXPECT_EQ(with.options, (V{"--region", "f", "g"}));
  EXPECT_EQ(with.program, (V{"./app"}));
  auto without = split_command_line({"--region", "f", "./app", "g"}, kShapes, "roofprof run");
  EXPECT_EQ(without.options, (V{"--region", "f"}));
  EXPECT_EQ(without.program, (V{"./app", "g"}));
}

TEST(SplitCommandLine, ProgramStartsAtTheFirstWordThatIsNoOptionOrValue) {
  auto s = split_command_line({"-q", "-o", "r.json", "--region=f", "-rg", "--no-preload", "./app", "-q", "--help"},
                              kShapes, "roofprof run");
  EXPECT_EQ(s.options, (V{"-q", "-o", "r.json", "--region=f", "-rg", "--no-preload"}));
  EXPECT_EQ(s.program, (V{"./app", "-q", "--help"}));
}

TEST(SplitCommandLine, AValueMayStartWithADash) {
  auto s = split_command_line({"-o", "-", "--", "./app"}, kShapes, "roofprof run");
  EXPECT_EQ(s.options, (V{"-o", "-"}));
}

TEST(SplitCommandLine, NoProgram) {
  auto s = split_command_line({"-r", "f"}, kShapes, "roofprof run");
  EXPECT_TRUE(s.program.empty());
  EXPECT_TRUE(split_command_line({"-r", "f", "--"}, kShapes, "roofprof run").program.empty());
}

std::string error_of(const V& args) {
  try {
    split_command_line(args, kShapes, "roofprof run");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(SplitCommandLine, UnknownOptionsAreNamedWithTheClosest) {
  EXPECT_EQ(error_of({"--regoin", "f", "--", "./app"}).rfind("unknown option '--regoin' for roofprof run (did you mean --region?)", 0),
            0u);
  EXPECT_NE(error_of({"--zzzzzzzz"}).find("unknown option '--zzzzzzzz' for roofprof run;"), std::string::npos);
  EXPECT_NE(error_of({"--output"}).find("option --output needs a value"), std::string::npos);
  EXPECT_NE(error_of({"-qx"}).find("write each flag separately"), std::string::npos);
}

TEST(DidYouMean, OnlyCloseNames) {
  EXPECT_EQ(did_you_mean("reprot", {"run", "report", "symbols"}), V{"report"});
  EXPECT_TRUE(did_you_mean("frobnicate", {"run", "report", "symbols"}).empty());
  EXPECT_EQ(did_you_mean_phrase({"a", "b", "c"}), " (did you mean a, b or c?)");
  EXPECT_EQ(did_you_mean_phrase({}), "");
}

}  // namespace
}  // namespace roofprof
