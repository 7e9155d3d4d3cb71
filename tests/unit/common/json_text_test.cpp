// `--ceilings` on a 100,000-deep JSON once crashed; every JSON reader checks the
// nesting first (common/json_text.hpp).
#include "common/json_text.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace roofprof {
namespace {

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string error_of(const std::string& text) {
  try {
    check_json_depth(text, "ceilings file 'x'", "check the file");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonText, NestingUpToTheLimitPasses) {
  EXPECT_EQ(error_of(nested(kMaxJsonDepth)), "");
  EXPECT_EQ(error_of("{\"a\": [1, {\"b\": [[]]}], \"c\": {}}"), "");
}

TEST(JsonText, DeeperNestingIsOneLine) {
  EXPECT_EQ(error_of(nested(kMaxJsonDepth + 1)),
            "ceilings file 'x': JSON nested deeper than 128 levels; check the file");
  EXPECT_NE(error_of(nested(100000)), "");
  EXPECT_NE(error_of(std::string(100000, '{')), "") << "unclosed";
}

TEST(JsonText, BracketsInStringsDoNotCount) {
  EXPECT_EQ(error_of("[\"" + std::string(1000, '[') + "\"]"), "");
  EXPECT_EQ(error_of("[\"\\\"" + std::string(1000, '{') + "\"]"), "") << "an escaped quote does not end the string";
  EXPECT_NE(error_of("[\"\\\\\"" + nested(200) + "]"), "") << "an escaped backslash does";
}

}  // namespace
}  // namespace roofprof
