// The run summary names what a region covers and tells "never found" from "found, never entered".
#include <gtest/gtest.h>

#include "report/summary.hpp"
#include "tests/unit/report/golden.hpp"

namespace roofprof::report {
namespace {

std::string summary_of(const result::Region& r) {
  result::Run run;
  run.backend = "time";
  run.regions = {r};
  return testing::capture([&](std::FILE* f) { print_summary(run, f); });
}

result::Region function(const std::string& name, std::vector<result::Site> locations, uint64_t calls) {
  result::Region r;
  r.name = name;
  r.kind = "function";
  r.locations = std::move(locations);
  r.calls = calls;
  r.threads = calls ? 1 : 0;
  return r;
}

TEST(Summary, NeverFoundIsNotFoundNeverEntered) {
  EXPECT_NE(summary_of(function("nope", {}, 0)).find("  nope (function): never found"), std::string::npos);
  auto found = summary_of(function("kern", {{"/b/app", 0x1139, "kern", "entry"}}, 0));
  EXPECT_NE(found.find("  kern (function): found, never entered\n"), std::string::npos) << found;
}

TEST(Summary, ListsEveryFunctionARegionCovers) {
  auto text = summary_of(function("kern_axpy",
                                  {{"/b/app", 0x1139, "kern_axpy", "entry"},
                                   {"/b/app", 0x1200, "kern_axpy.constprop.0", "entry"},
                                   {"/b/libk.so", 0x500, "kern_axpy", "entry"}},
                                  20));
  EXPECT_NE(text.find("    covers kern_axpy, kern_axpy.constprop.0 (app, libk.so)\n"), std::string::npos) << text;
  // One function of the region's own name: nothing to add.
  auto one = summary_of(function("kern", {{"/b/app", 0x1139, "kern", "entry"}}, 1));
  EXPECT_EQ(one.find("covers"), std::string::npos) << one;
}

TEST(Summary, SaysWhatReadingTheAgentsRecordsCostRoofprof) {
  result::Run run;
  run.backend = "time";
  run.agent_reader = result::AgentReader{0.0123, 14, 3};
  auto text = testing::capture([&](std::FILE* f) { print_summary(run, f); });
  EXPECT_NE(text.find("  roofprof's reader of the in-process records: 12.3 ms of CPU, slept 14 times (3 woken by a "
                      "ring filling up or a process ending)\n"),
            std::string::npos)
      << text;
  run.agent_reader.reset();  // breakpoints only: no line
  text = testing::capture([&](std::FILE* f) { print_summary(run, f); });
  EXPECT_EQ(text.find("reader"), std::string::npos) << text;
}

// Calls of an inlined copy interleaved with its caller's code are approximate, and said so under
// the region's heading; exact calls say nothing.
TEST(Summary, SaysWhyCallsAreApproximate) {
  auto r = function("poly", {{"/b/app", 0x117d, "poly at f.c:15", "start"}}, 500);
  r.calls_approximate = {"poly inlined at f.c:15 in app: control comes back into its code at 2 places"};
  auto text = summary_of(r);
  EXPECT_NE(text.find("  ! calls approximate: poly inlined at f.c:15 in app: control comes back into its code at 2 "
                      "places\n"),
            std::string::npos)
      << text;
  r.calls_approximate.clear();
  EXPECT_EQ(summary_of(r).find("approximate"), std::string::npos);
}

}  // namespace
}  // namespace roofprof::report
