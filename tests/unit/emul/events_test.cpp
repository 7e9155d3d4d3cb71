// The event parser alone, on hand-written event files (no valgrind).
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "emul/events.hpp"

namespace roofprof::emul {
namespace {

using regions::CloseReason;
using regions::Instance;

// Probes: 0 entry of region 0, 1 entry of region 1, 2 start and 3 stop of span region 2.
const std::vector<probes::PlannedProbe> kProbes = {{0, probes::SiteRole::Entry, "/bin/true", 0x10, "", false},
                                    {1, probes::SiteRole::Entry, "/bin/true", 0x20, "", false},
                                    {2, probes::SiteRole::SpanStart, "/bin/true", 0x30, "", false},
                                    {2, probes::SiteRole::SpanStop, "/bin/true", 0x40, "", false}};

struct Feed {
  std::vector<Instance> out;
  EventParser parser;
  explicit Feed(regions::Scope scope = regions::Scope::Process)
      : parser(kProbes, scope, [this](Instance&& i) { out.push_back(std::move(i)); }) {}
  // Feeds a whole file; `crashed` as the driver would say.
  void file(const std::vector<std::string>& body, bool crashed = false) {
    int f = parser.open_file("test.events");
    for (auto l : {"roofprof-emul 1", "pid 100 parent 0", "counters instructions flops"}) parser.line(f, l);
    for (const auto& l : body) parser.line(f, l);
    parser.close_file(f, crashed);
  }
};

TEST(EmulEvents, EntryAndReturnMakeOneInstanceWithTheDeltas) {
  Feed feed;
  feed.file({"P 0 100 7ff0 5 1 | =", "R r 100 7ff8 10 4 | =", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 1u);
  EXPECT_EQ(feed.out[0].region, 0u);
  EXPECT_EQ(feed.out[0].pid, 100);
  EXPECT_EQ(feed.out[0].tid, 100);
  EXPECT_EQ(feed.out[0].reason, CloseReason::Return);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{10, 4}));
  EXPECT_EQ(feed.parser.counters(), (std::vector<std::string>{"instructions", "flops"}));
  EXPECT_EQ(feed.parser.totals().at(100), (std::vector<double>{15, 5}));
  EXPECT_EQ(feed.parser.exit_codes().at(100), 0);
}

TEST(EmulEvents, ARetAboveSeveralEntriesReturnsTheOuterAndUnwindsTheInner) {
  Feed feed;
  feed.file({"P 0 100 7ff0 0 0 | =", "P 1 100 7fd0 1 0 | =", "R r 100 7ff8 1 0 | =", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 2u);
  EXPECT_EQ(feed.out[0].region, 1u);
  EXPECT_EQ(feed.out[0].reason, CloseReason::Unwound);
  EXPECT_EQ(feed.out[1].region, 0u);
  EXPECT_EQ(feed.out[1].reason, CloseReason::Return);
}

TEST(EmulEvents, DepartureKindsNameTheCloseReason) {
  Feed feed;
  feed.file({"P 0 100 7ff0 0 0 | =", "R l 100 8000 0 0 | =", "P 0 100 7ff0 0 0 | =", "R x 100 8000 0 0 | =",
             "P 0 100 7ff0 0 0 | =", "R j 100 8000 0 0 | =", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 3u);
  EXPECT_EQ(feed.out[0].reason, CloseReason::Longjmp);
  EXPECT_EQ(feed.out[1].reason, CloseReason::Exception);
  EXPECT_EQ(feed.out[2].reason, CloseReason::Unwound);
}

TEST(EmulEvents, AnEntryAboveAnOpenEntryMeansItsFrameIsGone) {
  Feed feed;
  // Region 0 entered at 7ff0, left unseen; region 1 entered higher, at 7ff8.
  feed.file({"P 0 100 7ff0 0 0 | =", "P 1 100 7ff8 2 0 | =", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 2u);
  EXPECT_EQ(feed.out[0].region, 0u);
  EXPECT_EQ(feed.out[0].reason, CloseReason::Unwound);
  EXPECT_EQ(feed.out[1].region, 1u);
  EXPECT_EQ(feed.out[1].reason, CloseReason::ProcessExit);
}

const std::vector<std::string> kTwoThreads = {
    "P 0 100 7ff0 5 0 | 5 0",  // thread 100 (5,0), process (5,0)
    "P 0 200 6ff0 3 0 | 7 0",  // thread 200 (3,0), process (12,0)
    "R r 200 6ff8 4 2 | 4 2",  // thread 200 (7,2), process (16,2)
    "R r 100 7ff8 1 1 | 1 1",  // thread 100 (6,1), process (17,3)
    "Z 0 0 0"};

// Both threads in the region at once: each has its own work; the process's delta while the
// region was open, (17,3) - (5,0), is counted once, what no instance holds (thread 200's 3 before
// its entry, and 4 more of the process's) going to thread 100's, the first in.
TEST(EmulEvents, ProcessScopeCountsEveryThreadOnce) {
  Feed feed(regions::Scope::Process);
  feed.file(kTwoThreads);
  ASSERT_EQ(feed.out.size(), 2u);
  EXPECT_EQ(feed.out[0].tid, 200);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{4, 2}));
  EXPECT_EQ(feed.out[1].tid, 100);
  EXPECT_EQ(feed.out[1].counts, (std::vector<double>{8, 1}));
  EXPECT_EQ(feed.out[1].others, (std::vector<double>{7, 0}));
}

TEST(EmulEvents, ThreadScopeCountsTheEnteringThread) {
  Feed feed(regions::Scope::Thread);
  feed.file(kTwoThreads);
  ASSERT_EQ(feed.out.size(), 2u);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{4, 2}));
  EXPECT_EQ(feed.out[1].counts, (std::vector<double>{1, 1}));
}

TEST(EmulEvents, ThreadExitClosesItsInstances) {
  Feed feed(regions::Scope::Thread);
  feed.file({"P 0 200 6ff0 0 0 | 0 0", "X 200 0 3 1 | 3 1", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 1u);
  EXPECT_EQ(feed.out[0].reason, CloseReason::ThreadExit);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{3, 1}));
}

TEST(EmulEvents, ThreadsAliveAtExitCloseWithTheirFinalValues) {
  Feed feed(regions::Scope::Thread);
  feed.file({"P 0 200 6ff0 1 0 | 1 0", "F 200 6 2", "Z 0 6 2"});
  ASSERT_EQ(feed.out.size(), 1u);
  EXPECT_EQ(feed.out[0].reason, CloseReason::ProcessExit);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{6, 2}));
}

TEST(EmulEvents, SpanStopAndStartAtOneAddressEndOneSpanAndBeginTheNext) {
  Feed feed;
  feed.file({"P 2 100 7ff0 0 0 | =", "P 2,3 100 7ff0 4 0 | =", "P 3 100 7ff0 6 0 | =", "Z 0 0 0"});
  ASSERT_EQ(feed.out.size(), 2u);
  EXPECT_EQ(feed.out[0].counts, (std::vector<double>{4, 0}));
  EXPECT_EQ(feed.out[1].counts, (std::vector<double>{6, 0}));
  EXPECT_EQ(feed.out[1].reason, CloseReason::SpanStop);
}

TEST(EmulEvents, EndsOfAProcessImage) {
  {
    Feed feed;  // died of a signal
    feed.file({"P 2 100 7ff0 0 0 | =", "Z 0 1 0"}, true);
    ASSERT_EQ(feed.out.size(), 1u);
    EXPECT_EQ(feed.out[0].reason, CloseReason::Crash);
  }
  {
    Feed feed;  // no "Z": killed before valgrind could finish
    feed.file({"P 2 100 7ff0 0 0 | ="});
    ASSERT_EQ(feed.out.size(), 1u);
    EXPECT_EQ(feed.out[0].reason, CloseReason::Crash);
  }
  {
    Feed feed;  // exec'd: this image ends
    feed.file({"P 2 100 7ff0 0 0 | =", "E 100 0 2 0 | ="});
    ASSERT_EQ(feed.out.size(), 1u);
    EXPECT_EQ(feed.out[0].reason, CloseReason::ProcessExit);
    EXPECT_EQ(feed.out[0].counts, (std::vector<double>{2, 0}));
  }
  {
    Feed feed;  // the exec failed and the file stops later without "Z"
    feed.file({"P 2 100 7ff0 0 0 | =", "E 100 0 2 0 | =", "e"});
    ASSERT_EQ(feed.out.size(), 1u);
    EXPECT_EQ(feed.out[0].reason, CloseReason::Crash);
  }
}

TEST(EmulEvents, MalformedInputIsAUserError) {
  Feed feed;
  int f = feed.parser.open_file("bad.events");
  EXPECT_THROW(feed.parser.line(f, "something else"), UserError);
  int g = feed.parser.open_file("bad2.events");
  for (auto l : {"roofprof-emul 1", "pid 100 parent 0", "counters instructions flops"}) feed.parser.line(g, l);
  EXPECT_THROW(feed.parser.line(g, "P 0 100 7ff0 5 | ="), UserError);       // too few values
  EXPECT_THROW(feed.parser.line(g, "P 9 100 7ff0 5 1 | ="), UserError);     // unknown probe
  EXPECT_THROW(feed.parser.line(g, "P 0 100 zz 5 1 | ="), UserError);       // bad sp
  EXPECT_THROW(feed.parser.line(g, "Q 1"), UserError);                      // unknown event
  EXPECT_THROW(feed.parser.line(g, "R r 100 7ff8 1 1 | 1"), UserError);    // short process part
}

}  // namespace
}  // namespace roofprof::emul
