// The optional top-level `job` member: which rank of which MPI job a result is.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "result/result.hpp"
#include "tests/unit/result/sample_run.hpp"

namespace roofprof::result {
namespace {

using nlohmann::json;

TEST(ResultJob, RoundTrip) {
  result::Run run = samples::sample_run();
  run.job = Job{"openmpi", 3, 4, "1865875457"};
  json j = to_json(run);
  EXPECT_EQ(j["job"], json::parse(R"({"launcher":"openmpi","rank":3,"size":4,"id":"1865875457"})"));
  EXPECT_EQ(from_json(json::parse(j.dump())), run);
}

TEST(ResultJob, UnknownSizeAndIdAreNull) {
  result::Run run = samples::sample_run();
  run.job = Job{"pmix", 1, std::nullopt, std::nullopt};
  json j = to_json(run);
  EXPECT_TRUE(j["job"]["size"].is_null());
  EXPECT_TRUE(j["job"]["id"].is_null());
  EXPECT_EQ(from_json(j), run);
}

TEST(ResultJob, AbsentOutsideAJobAndOptionalOnRead) {
  json j = to_json(samples::sample_run());
  EXPECT_FALSE(j.contains("job"));
  EXPECT_FALSE(from_json(j).job);
}

TEST(ResultJob, MalformedJobNamesTheMember) {
  result::Run run = samples::sample_run();
  run.job = Job{"slurm", 4, 4, "9"};
  try {
    from_json(to_json(run));
    FAIL() << "rank 4 of 4 accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("job.size"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace roofprof::result
