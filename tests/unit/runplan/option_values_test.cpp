// The words of run's --scope and --cache-state and their enums (runplan/option_values.hpp).
#include "runplan/option_values.hpp"

#include <gtest/gtest.h>

namespace roofprof::runplan {
namespace {

TEST(OptionValues, ScopeWords) {
  EXPECT_EQ(scope_names(), (std::vector<std::string>{"process", "thread"}));
  EXPECT_EQ(scope_named("process"), regions::Scope::Process);
  EXPECT_EQ(scope_named("thread"), regions::Scope::Thread);
  for (const char* bad : {"", "Thread", "threads", "proc", "process "}) EXPECT_FALSE(scope_named(bad)) << bad;
}

TEST(OptionValues, CacheStateWords) {
  EXPECT_EQ(cache_state_names(), (std::vector<std::string>{"warm", "cold"}));
  EXPECT_EQ(cache_state_named("warm"), CacheState::Warm);
  EXPECT_EQ(cache_state_named("cold"), CacheState::Cold);
  for (const char* bad : {"", "lukewarm", "COLD", "hot"}) EXPECT_FALSE(cache_state_named(bad)) << bad;
}

TEST(OptionValues, EachNameReadsBackToItsValue) {
  for (const auto& word : scope_names()) EXPECT_EQ(to_string(*scope_named(word)), word);
  for (const auto& word : cache_state_names()) EXPECT_EQ(to_string(*cache_state_named(word)), word);
}

}  // namespace
}  // namespace roofprof::runplan
