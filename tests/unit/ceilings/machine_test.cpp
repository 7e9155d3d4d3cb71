// The host's caches as ceilings sizes its working sets by them: through the one model
// (common/cache_info.hpp), so ROOFPROF_HOST_CACHES (test builds) gives another host's.
#include <gtest/gtest.h>

#include "ceilings/machine.hpp"
#include "tests/unit/host_caches_variable.hpp"

namespace roofprof::ceilings {
namespace {

TEST(CeilingsMachine, CacheGeometryIsTheOneModelsAnotherHostsThroughTheSeam) {
  if (!host_caches_honoured()) GTEST_SKIP() << "built without ROOFPROF_TEST_SEAMS";
  test_support::HostCachesVariable v("L1=48K:12:64,L2=1M:16:64,L3=508M:16:64,non-inclusive");
  const auto g = cache_geometry();
  ASSERT_EQ(g.size(), 3u);
  const uint64_t sizes[] = {48u << 10, 1u << 20, 508ull << 20};
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(g[i].level, int(i) + 1);
    EXPECT_EQ(g[i].size, sizes[i]) << "L" << i + 1;
    EXPECT_EQ(g[i].line, 64u);
    EXPECT_EQ(g[i].shared_by_cpus, 1) << "not said to be shared: private";
  }
}

TEST(CeilingsMachine, CacheGeometryOfThisHostHasAnL1) {
  test_support::HostCachesVariable v(nullptr);
  const auto g = cache_geometry();
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(g[0].level, 1);
  EXPECT_GT(g[0].size, 0u);
}

}  // namespace
}  // namespace roofprof::ceilings
