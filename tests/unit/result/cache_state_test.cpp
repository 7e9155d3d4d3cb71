// cache_state and cache_evictions (run --cache-state): written always, optional on read.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "result/result.hpp"
#include "tests/unit/result/sample_run.hpp"

namespace roofprof::result {
namespace {

TEST(CacheState, ColdRoundTrips) {
  result::Run run = samples::sample_run();
  run.cache_state = "cold";
  run.cache_evictions = 12;
  nlohmann::json j = to_json(run);
  EXPECT_EQ(j["cache_state"], "cold");
  EXPECT_EQ(j["cache_evictions"], 12);
  EXPECT_EQ(from_json(j), run);
}

TEST(CacheState, WarmWritesNullEvictions) {
  nlohmann::json j = to_json(samples::sample_run());
  EXPECT_EQ(j["cache_state"], "warm");
  EXPECT_TRUE(j["cache_evictions"].is_null());
}

TEST(CacheState, FilesWithoutTheMembersWereWarm) {
  nlohmann::json j = to_json(samples::sample_run());
  j.erase("cache_state");
  j.erase("cache_evictions");
  result::Run run = from_json(j);
  EXPECT_EQ(run.cache_state, "warm");
  EXPECT_FALSE(run.cache_evictions.has_value());
}

TEST(CacheState, UnknownStateIsRejected) {
  nlohmann::json j = to_json(samples::sample_run());
  j["cache_state"] = "tepid";
  EXPECT_THROW(from_json(j), UserError);
  j["cache_state"] = "cold";
  j["cache_evictions"] = -1;
  EXPECT_THROW(from_json(j), UserError);
}

}  // namespace
}  // namespace roofprof::result
