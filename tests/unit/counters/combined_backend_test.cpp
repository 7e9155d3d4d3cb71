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

TEST(CombinedBackend, OnlyTimePartsIsTime) {
  std::vector<std::unique_ptr<Backend>> parts;
  parts.push_back(make_null_backend());
  EXPECT_EQ(make_combined_backend(std::move(parts))->name(), "time");
}

}  // namespace
}  // namespace roofprof::counters
