// The example in docs/result-schema.md is a valid result, exactly as the writer lays it out.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "result/result.hpp"

namespace roofprof::result {
namespace {

std::string json_block_of(const std::string& markdown) {
  const std::string open = "```json\n";
  size_t begin = markdown.find(open);
  if (begin == std::string::npos) return "";
  begin += open.size();
  size_t end = markdown.find("```", begin);
  return markdown.substr(begin, end - begin);
}

TEST(SchemaDoc, ExampleIsAValidResultAndMatchesTheWriter) {
  std::ifstream in(std::string(SOURCE_DIR) + "/docs/result-schema.md");
  ASSERT_TRUE(in) << "docs/result-schema.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string block = json_block_of(ss.str());
  ASSERT_FALSE(block.empty()) << "no ```json block in docs/result-schema.md";
  nlohmann::json example = nlohmann::json::parse(block);
  result::Run run = from_json(example);
  EXPECT_EQ(to_json(run), example);  // every member documented by example, none invented
  EXPECT_EQ(run.schema, kSchemaVersion);
}

TEST(SchemaDoc, EveryCloseReasonIsDocumented) {
  std::ifstream in(std::string(SOURCE_DIR) + "/docs/result-schema.md");
  std::stringstream ss;
  ss << in.rdbuf();
  for (const char* reason : {"return", "span_stop", "longjmp", "exception", "unwound",
                             "thread_exit", "process_exit", "crash", "detach"})
    EXPECT_NE(ss.str().find(std::string("| `") + reason + "` |"), std::string::npos) << reason;
}

}  // namespace
}  // namespace roofprof::result
