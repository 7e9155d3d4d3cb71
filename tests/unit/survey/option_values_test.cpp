// The words of survey's --backend, --sort and --unwind and their enums (survey/option_values.hpp).
#include "survey/option_values.hpp"

#include <gtest/gtest.h>

namespace roofprof::survey {
namespace {

TEST(SurveyOptionValues, BackendWords) {
  EXPECT_EQ(backend_names(), (std::vector<std::string>{"auto", "emul"}));
  EXPECT_EQ(backend_named("auto"), counters::BackendRequest::automatic);
  EXPECT_EQ(backend_named("emul"), counters::BackendRequest::emul);
  // run's other backends are no survey's: it samples, or samples and emulates
  for (const char* bad : {"", "perf", "native", "time", "EMUL", "emul "}) EXPECT_FALSE(backend_named(bad)) << bad;
}

TEST(SurveyOptionValues, SortWords) {
  EXPECT_EQ(sort_names(), (std::vector<std::string>{"time", "work"}));
  EXPECT_EQ(sort_named("time"), SortKey::Time);
  EXPECT_EQ(sort_named("work"), SortKey::Work);
  for (const char* bad : {"", "size", "Work", "self"}) EXPECT_FALSE(sort_named(bad)) << bad;
}

TEST(SurveyOptionValues, UnwindWords) {
  EXPECT_EQ(unwind_names(), (std::vector<std::string>{"cfi", "fp"}));
  EXPECT_EQ(unwind_named("cfi"), Unwind::Cfi);
  EXPECT_EQ(unwind_named("fp"), Unwind::Fp);
  for (const char* bad : {"", "lbr", "dwarf", "FP"}) EXPECT_FALSE(unwind_named(bad)) << bad;
}

TEST(SurveyOptionValues, EachNameReadsBackToItsValue) {
  for (const auto& word : backend_names()) EXPECT_EQ(counters::to_string(*backend_named(word)), word);
  for (const auto& word : sort_names()) EXPECT_EQ(to_string(*sort_named(word)), word);
  for (const auto& word : unwind_names()) EXPECT_EQ(to_string(*unwind_named(word)), word);
}

}  // namespace
}  // namespace roofprof::survey
