// The event parser on the agent's records (N and A lines, written by emul/tool/rp_agent.c for
// `roofprof run --no-ptrace --backend emul`): fed to the Tracker as preload::Replay feeds
// native records. Hand-written files, no valgrind. A lines: "A <kind> <reason> <region> <tid>
// <sp> <counts>" with the agent's codes (preload/record_format.h): kind 1 enter, 2 stack_at,
// 3 thread exit, 4 process exit; reason 0 return, 1 longjmp, 4 thread exit, 5 process exit.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "emul/events.hpp"

namespace roofprof::emul {
namespace {

using regions::CloseReason;
using regions::Instance;

struct AgentFeed {
  std::vector<Instance> out;
  std::vector<std::pair<uint32_t, std::string>> asked;
  EventParser parser;
  // Spec 0 names planner region 5; any other spec names regions 6 and 7 (two specs matching
  // one function).
  AgentFeed()
      : parser({}, regions::Scope::Process, [this](Instance&& i) { out.push_back(std::move(i)); },
               [this](uint32_t spec, const std::string& symbol) {
                 asked.emplace_back(spec, symbol);
                 return spec == 0 ? std::vector<regions::RegionId>{5} : std::vector<regions::RegionId>{6, 7};
               }) {}
  int open() {
    int f = parser.open_file("agent.events");
    for (auto l : {"roofprof-emul 1", "pid 100 parent 0", "counters instructions flops"}) parser.line(f, l);
    return f;
  }
  void file(const std::vector<std::string>& body) {
    int f = open();
    for (const auto& l : body) parser.line(f, l);
    parser.close_file(f, false);
  }
};

TEST(EmulAgentEvents, EnterAndReturnMakeOneInstanceWithTheToolsDeltas) {
  AgentFeed feed;
  feed.file({"N 0 0 work", "A 1 0 0 100 7ff0 5 1 | =", "A 2 0 0 100 7ff8 10 4 | =", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 1u);
  EXPECT_EQ(feed.out[0].region, 5u);
  EXPECT_EQ(feed.out[0].tid, 100);
  EXPECT_EQ(feed.out[0].reason, CloseReason::Return);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{10, 4}));
  EXPECT_EQ(feed.asked, (std::vector<std::pair<uint32_t, std::string>>{{0, "work"}}));
}

TEST(EmulAgentEvents, OneAgentRegionOpensEveryPlannerRegionItNames) {
  AgentFeed feed;
  feed.file({"N 3 1 both", "A 1 0 3 100 7ff0 0 0 | =", "A 2 1 0 100 8000 2 2 | =", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 2u);
  EXPECT_EQ(feed.out[0].reason, CloseReason::Longjmp);
  EXPECT_EQ(feed.out[1].reason, CloseReason::Longjmp);
  EXPECT_EQ(feed.out[0].region + feed.out[1].region, 13u);
}

TEST(EmulAgentEvents, RecursionIsTheTrackersBusiness) {
  // The agent reports only the outermost call; a nested enter of an open region (possible
  // after a shadow-stack repair) is still counted once by the Tracker.
  AgentFeed feed;
  feed.file({"N 0 0 work", "A 1 0 0 100 7ff0 0 0 | =", "A 1 0 0 100 7fd0 1 0 | =", "A 2 0 0 100 7ff8 3 0 | =",
             "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 1u);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{4, 0}));
}

TEST(EmulAgentEvents, ThreadAndProcessExitRecordsClose) {
  AgentFeed feed;
  feed.file({"N 0 0 work", "A 1 0 0 101 7ff0 0 0 | 0 0", "A 3 4 0 101 0 2 1 | 2 1", "A 1 0 0 100 6ff0 0 0 | 0 0",
             "A 4 5 0 100 0 7 0 | 7 0", "Z 0 9 9"});
  ASSERT_EQ(feed.out.size(), 2u);
  EXPECT_EQ(feed.out[0].reason, CloseReason::ThreadExit);
  EXPECT_EQ(feed.out[0].tid, 101);
  EXPECT_EQ(feed.out[1].reason, CloseReason::ProcessExit);
  EXPECT_EQ(feed.out[1].counts, (std::vector<double>{7, 0}));  // at the exit record, not at "Z"
}

TEST(EmulAgentEvents, MalformedAgentLinesAreUserErrors) {
  AgentFeed feed;
  int f = feed.open();
  EXPECT_THROW(feed.parser.line(f, "A 1 0 9 100 7ff0 0 0 | ="), UserError);  // region never named
  EXPECT_THROW(feed.parser.line(f, "N 1 x work"), UserError);                // bad spec
  EXPECT_THROW(feed.parser.line(f, "A 9 0 0 100 7ff0 0 0 | ="), UserError);  // unknown kind
  EXPECT_THROW(feed.parser.line(f, "A 2 0 0 100 7ff0 0 | ="), UserError);    // too few values
}

}  // namespace
}  // namespace roofprof::emul
