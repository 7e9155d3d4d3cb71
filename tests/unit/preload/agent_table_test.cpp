#include "preload/agent_table.hpp"

#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "preload/record_format.h"

namespace roofprof::preload {
namespace {

TEST(AgentTable, ParsesEveryKindOfLine) {
  AgentTable t = parse_table(
      "M 1 55d0c0de0000 /bin/app\n"
      "M 0 7f0012340000 /usr/lib/lib with space.so\n"
      "M 0 /usr/lib/no bias.so\n"
      "R 0 2 _ZN3ns6Solver4stepEi\n"
      "H 0 /bin/app\n"
      "H 0 /usr/lib/lib with space.so\n"
      "R 3 0 dgemm_\n"
      "W too many hooked regions: x in y not hooked\n");
  ASSERT_EQ(t.modules.size(), 2u);
  EXPECT_EQ(t.modules[0].path, "/bin/app");
  EXPECT_TRUE(t.modules[0].is_main);
  EXPECT_EQ(t.modules[1].path, "/usr/lib/lib with space.so");
  EXPECT_FALSE(t.modules[1].is_main);
  EXPECT_EQ(t.modules[0].bias, 0x55d0c0de0000u);
  EXPECT_EQ(t.modules[1].bias, 0x7f0012340000u);
  ASSERT_EQ(t.regions.size(), 2u);
  EXPECT_EQ(t.regions.at(0).spec, 2u);
  EXPECT_EQ(t.regions.at(0).symbol, "_ZN3ns6Solver4stepEi");
  EXPECT_EQ(t.regions.at(0).callers, (std::vector<std::string>{"/bin/app", "/usr/lib/lib with space.so"}));
  EXPECT_EQ(t.regions.at(3).spec, 0u);
  EXPECT_EQ(t.regions.at(3).symbol, "dgemm_");
  EXPECT_TRUE(t.regions.at(3).callers.empty());
  EXPECT_EQ(t.warnings, (std::vector<std::string>{"malformed agent table line: M 0 /usr/lib/no bias.so",
                                                  "too many hooked regions: x in y not hooked"}));
}

TEST(AgentTable, CalibrationLine) {
  AgentTable t = parse_table("M 1 400000 /bin/app\nC 256 151296 100096 60000\n");
  ASSERT_TRUE(t.calibration);
  EXPECT_EQ(t.calibration->calls, 256u);
  EXPECT_EQ(t.calibration->ns, 151296u);
  EXPECT_EQ(t.calibration->timed, 100096u);
  EXPECT_EQ(t.calibration->clock_only_ns, 60000u);
  EXPECT_DOUBLE_EQ(t.calibration->untimed_per_boundary_ns(), 100.0);  // 51200 ns over 512 boundaries
  EXPECT_TRUE(t.warnings.empty());
  AgentTable bad = parse_table("C 0 5 1 1\nC 12\nC 1 x 1 1\nC 1 5 3\nC 1 5 3 2 1\n");
  EXPECT_FALSE(bad.calibration);
  EXPECT_EQ(bad.warnings.size(), 5u);
}

TEST(AgentTable, PartialLastLineWaitsForTheRest) {
  AgentTable t = parse_table("M 1 400000 /bin/app\nR 0 0 dge");
  EXPECT_EQ(t.modules.size(), 1u);
  EXPECT_TRUE(t.regions.empty());
  EXPECT_TRUE(t.warnings.empty());
}

TEST(AgentTable, MalformedLinesBecomeWarnings) {
  AgentTable t = parse_table("R x 0 f\nH 9 /lib/a.so\nM 2 /x\nQ what\n");
  EXPECT_TRUE(t.regions.empty());
  EXPECT_TRUE(t.modules.empty());
  ASSERT_EQ(t.warnings.size(), 4u);
  EXPECT_EQ(t.warnings[0], "malformed agent table line: R x 0 f");
  EXPECT_EQ(t.warnings[1], "malformed agent table line: H 9 /lib/a.so");  // region 9 never declared
  EXPECT_EQ(t.warnings[3], "malformed agent table line: Q what");
}

}  // namespace
}  // namespace roofprof::preload

namespace roofprof::preload {
namespace {

// Lines written with the agent's own formats (preload/record_format.h) read back as written.
std::string line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  int n = std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  return std::string(buf, size_t(n)) + "\n";
}

TEST(AgentTable, RoundTripOfTheAgentsFormats) {
  const std::string text = line(RP_TABLE_MODULE_FORMAT, 1, 0x55d0c0de0000ul, "/bin/my app") +
                           line(RP_TABLE_REGION_FORMAT, 7u, 3u, "_ZN2ns1fEi") +
                           line(RP_TABLE_HOOKED_FORMAT, 7u, "/bin/my app") +
                           line(RP_TABLE_CALIBRATION_FORMAT, 256, 151296ll, 100096ll, 60000ll) +
                           line(RP_TABLE_WARNING " %s", "a thread entered seccomp strict mode");
  AgentTable t = parse_table(text);
  ASSERT_EQ(t.modules.size(), 1u);
  EXPECT_TRUE(t.modules[0].is_main);
  EXPECT_EQ(t.modules[0].bias, 0x55d0c0de0000u);
  EXPECT_EQ(t.modules[0].path, "/bin/my app");
  ASSERT_EQ(t.regions.count(7), 1u);
  EXPECT_EQ(t.regions.at(7).spec, 3u);
  EXPECT_EQ(t.regions.at(7).symbol, "_ZN2ns1fEi");
  EXPECT_EQ(t.regions.at(7).callers, std::vector<std::string>{"/bin/my app"});
  ASSERT_TRUE(t.calibration);
  EXPECT_EQ(t.calibration->calls, 256u);
  EXPECT_EQ(t.calibration->ns, 151296u);
  EXPECT_EQ(t.warnings, std::vector<std::string>{"a thread entered seccomp strict mode"});
}

}  // namespace
}  // namespace roofprof::preload
