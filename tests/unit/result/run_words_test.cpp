// The words of a result's scope, cache_state and backend (common/run_words.hpp) as the reader
// checks them: what it accepts, and the exact line for what it does not.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "result/result.hpp"
#include "tests/unit/result/sample_run.hpp"

namespace roofprof::result {
namespace {

std::string run_words_error_of(const nlohmann::json& j) {
  try {
    from_json(j);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RunWords, ScopeAndBackendOfOneRunOrMixed) {
  nlohmann::json j = to_json(samples::sample_run());
  for (const char* scope : {"process", "thread", "mixed"}) {
    j["scope"] = scope;
    EXPECT_EQ(from_json(j).scope, scope);
  }
  for (const char* backend : {"perf", "native", "emul", "time", "mixed"}) {
    j["backend"] = backend;
    EXPECT_EQ(from_json(j).backend, backend);
  }
  for (const char* state : {"warm", "cold"}) {
    j["cache_state"] = state;
    EXPECT_EQ(from_json(j).cache_state, state);
  }
}

TEST(RunWords, UnknownWordsAreOneLineNamingTheChoices) {
  const nlohmann::json good = to_json(samples::sample_run());
  nlohmann::json j = good;
  j["scope"] = "threads";
  EXPECT_EQ(run_words_error_of(j),
            "scope: unknown value \"threads\" (expected one of \"process\", \"thread\", \"mixed\")");
  j = good;
  j["backend"] = "auto";  // a request, never what counted
  EXPECT_EQ(run_words_error_of(j),
            "backend: unknown value \"auto\" (expected one of \"perf\", \"native\", \"emul\", \"time\", \"mixed\")");
  j = good;
  j["cache_state"] = "tepid";
  EXPECT_EQ(run_words_error_of(j), "cache_state: expected \"warm\" or \"cold\"");
}

}  // namespace
}  // namespace roofprof::result
