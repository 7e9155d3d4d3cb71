#include "counters/combined_backend.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

namespace roofprof::counters {
namespace {

TEST(CombinedBackend, ConcatenatesEventsAndValues) {
  std::vector<std::unique_ptr<Backend>> parts;
  parts.push_back(make_null_backend());
  parts.push_back(make_perf_software_backend({"task-clock", "page-faults"}));
  parts.push_back(make_perf_software_backend({"context-switches"}));
  auto b = make_combined_backend(std::move(parts));
  EXPECT_EQ(b->name(), "perf");
  ASSERT_EQ(b->events().size(), 3u);
  EXPECT_EQ(b->events()[0].name, "task-clock");
  EXPECT_EQ(b->events()[2].name, "context-switches");
  auto c = b->open(::gettid());
  volatile long x = 0;
  for (long i = 0; i < 2000000; ++i) x = x + i;
  const CounterValues v = c->read();
  ASSERT_EQ(v.values.size(), 3u);
  EXPECT_GT(v.values[0], 0.0);
  EXPECT_FALSE(v.multiplexed);
}

// The groups a thread's counters are, for the in-process agent to open the same ones: each
// part's, in event order, with the attributes as opened (user-level software events here).
TEST(CombinedBackend, ThreadGroupsAreThePartsGroupsInEventOrder) {
  std::vector<std::unique_ptr<Backend>> parts;
  parts.push_back(make_null_backend());
  parts.push_back(make_perf_software_backend({"task-clock", "page-faults"}, true));
  parts.push_back(make_perf_software_backend({"context-switches"}));
  const auto groups = make_combined_backend(std::move(parts))->thread_groups();
  ASSERT_EQ(groups.size(), 2u);
  ASSERT_EQ(groups[0].size(), 2u);
  EXPECT_EQ(groups[0][0].type, uint32_t(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(groups[0][0].config, uint64_t(PERF_COUNT_SW_TASK_CLOCK));
  EXPECT_EQ(groups[0][1].config, uint64_t(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_EQ(groups[0][0].exclude_kernel, 1u);
  ASSERT_EQ(groups[1].size(), 1u);
  EXPECT_EQ(groups[1][0].config, uint64_t(PERF_COUNT_SW_CONTEXT_SWITCHES));
  EXPECT_EQ(groups[1][0].exclude_kernel, 0u);
  EXPECT_TRUE(make_null_backend()->thread_groups().empty());
}

TEST(CombinedBackend, OnlyTimePartsIsTime) {
  std::vector<std::unique_ptr<Backend>> parts;
  parts.push_back(make_null_backend());
  EXPECT_EQ(make_combined_backend(std::move(parts))->name(), "time");
}

}  // namespace
}  // namespace roofprof::counters
