// The words of run's --scope, --cache-state and --backend and their enums (runplan/option_values.hpp).
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

TEST(OptionValues, BackendWords) {
  using counters::BackendRequest;
  EXPECT_EQ(backend_names(), (std::vector<std::string>{"auto", "perf", "native", "emul", "time"}));
  EXPECT_EQ(backend_named("auto"), BackendRequest::automatic);
  EXPECT_EQ(backend_named("perf"), BackendRequest::perf);
  EXPECT_EQ(backend_named("native"), BackendRequest::native);
  EXPECT_EQ(backend_named("emul"), BackendRequest::emul);
  EXPECT_EQ(backend_named("time"), BackendRequest::time);
  for (const char* bad : {"", "papi", "Perf", "all", "mixed", "emul "}) EXPECT_FALSE(backend_named(bad)) << bad;
}

TEST(OptionValues, EachNameReadsBackToItsValue) {
  for (const auto& word : scope_names()) EXPECT_EQ(to_string(*scope_named(word)), word);
  for (const auto& word : cache_state_names()) EXPECT_EQ(to_string(*cache_state_named(word)), word);
  for (const auto& word : backend_names()) EXPECT_EQ(counters::to_string(*backend_named(word)), word);
}

}  // namespace
}  // namespace roofprof::runplan
