// `roofprof events` on the shipped sets (W's events in one pinned group that fits beside the NMI
// watchdog) and user event sets from a directory: added, overriding, used by `roofprof run`, and
// a bad file refused in one line with exit status 2.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "harness.hpp"

namespace it {
namespace {

// Every run here gets an empty XDG config of its own: the developer's own user sets stay out.
RunOptions isolated(Sandbox& sb, std::map<std::string, std::string> env = {}) {
  fs::create_directories(sb.path("xdg"));
  env["XDG_CONFIG_HOME"] = sb.path("xdg").string();
  RunOptions ro;
  ro.env = std::move(env);
  return ro;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

// From `roofprof events` output: W's ids (the `W =` formula line) and each per-thread id's group
// column ("1p" = group 1, pinned).
struct EventsListing {
  std::set<std::string> w_ids;
  std::map<std::string, std::string> group_of;
  std::string w_line;  // "  W: group 1, pinned ..." or "  W: its events need ..."
};

EventsListing parse_listing(const std::string& out) {
  EventsListing l;
  std::istringstream in(out);
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Per-thread events", 0) == 0) table = true;
    else if (line.empty()) table = false;
    else if (line.rfind("  W: ", 0) == 0) l.w_line = line;
    else if (line.rfind("  W ", 0) == 0) {
      const std::vector<std::string> w = words(line);  // W = 1*a + 2*b ...
      for (size_t i = 2; i < w.size(); ++i)
        if (const size_t star = w[i].find('*'); star != std::string::npos) l.w_ids.insert(w[i].substr(star + 1));
    } else if (table) {
      const std::vector<std::string> w = words(line);
      if (w.size() >= 2 && std::isdigit(static_cast<unsigned char>(w[0][0]))) l.group_of[w[1]] = w[0];
    }
  }
  return l;
}

// On these models W's events are one pinned group (never multiplexed) that fits with the
// watchdog's counter taken (Intel: 8 counters, 7 usable; AMD Zen 4/5: 6, 5 usable).
TEST(Events, WIsOnePinnedGroupBesideTheWatchdog) {
  Sandbox sb;
  const std::map<std::string, std::string> usable = {{"icx", "7"}, {"spr", "7"}, {"emr", "7"},
                                                     {"gnr", "7"}, {"zen4", "5"}, {"zen5", "5"}};
  for (const auto& [model, counters] : usable) {
    SCOPED_TRACE(model);
    const RunResult r = sb.roofprof({"events", "--pmu", model}, isolated(sb));
    ASSERT_EQ(r.exit_code(), 0) << r.diag();
    const EventsListing l = parse_listing(r.out);
    ASSERT_FALSE(l.w_ids.empty()) << r.out;
    std::set<std::string> groups;
    for (const std::string& id : l.w_ids) {
      ASSERT_TRUE(l.group_of.count(id)) << id << "\n" << r.out;
      groups.insert(l.group_of.at(id));
    }
    ASSERT_EQ(groups.size(), 1u) << r.out;
    const std::string group = *groups.begin();
    EXPECT_EQ(group.back(), 'p') << r.out;
    EXPECT_EQ(l.w_line.rfind("  W: group " + group.substr(0, group.size() - 1) + ", pinned (never rotated out): ", 0), 0u)
        << r.out;
    EXPECT_NE(l.w_line.find(" usable counters beside the NMI watchdog's"), std::string::npos) << l.w_line;
    EXPECT_NE(l.w_line.find("PMU's " + counters + " usable"), std::string::npos) << l.w_line;
  }
  // Skylake-SP with Hyper-Threading on (4 counters) cannot: the listing says W is an estimate.
  const RunResult skx = sb.roofprof({"events", "--pmu", "skx"}, isolated(sb));
  EXPECT_EQ(parse_listing(skx.out).w_line,
            "  W: its events need 5 counters on the core PMU, 3 are usable beside the NMI watchdog's: they are "
            "multiplexed, and W is an estimate (scaled)") << skx.out;
}

constexpr const char* kFuture =
    "# A part no shipped set knows.\n"
    "model futurex\ntitle Future Xeon\nvendor intel\nmatch cpu 6 0xf0-0xf3\ncounters 8\n"
    "event cycles raw:0x3c fixed\nevent fp_scalar raw:0x03c7\nevent fp_x4 raw:0x18c7\n"
    "formula W = 1*fp_scalar + 4*fp_x4\n"
    "note Q is unknown in this test set.\n";

TEST(Events, UserSetsFromTheOptionAndTheXdgDirectory) {
  Sandbox sb;
  fs::create_directories(sb.path("mine"));
  write_text(sb.path("mine/futurex.txt"), kFuture);
  const RunResult list = sb.roofprof({"events", "--list", "--event-dir", sb.path("mine").string()}, isolated(sb));
  ASSERT_EQ(list.exit_code(), 0) << list.diag();
  EXPECT_NE(list.out.find("  futurex Future Xeon  [user: " + sb.path("mine/futurex.txt").string() + "]"),
            std::string::npos) << list.out;
  // The default directory, $XDG_CONFIG_HOME/roofprof/events, needs no option.
  RunOptions ro = isolated(sb);
  fs::create_directories(sb.path("xdg/roofprof/events"));
  write_text(sb.path("xdg/roofprof/events/futurex.txt"), kFuture);
  const RunResult shown = sb.roofprof({"events", "--pmu", "futurex"}, ro);
  ASSERT_EQ(shown.exit_code(), 0) << shown.diag();
  EXPECT_NE(shown.out.find("(a user event set)"), std::string::npos) << shown.out;
  EXPECT_EQ(parse_listing(shown.out).group_of.at("fp_x4"), "1p") << shown.out;
}

TEST(Events, BadUserFileIsOneLineWithFileAndLineAndExitTwo) {
  Sandbox sb;
  fs::create_directories(sb.path("bad"));
  write_text(sb.path("bad/broken.txt"), "model broken\ntitle B\nvendor intel\nmatch cpu 6 0x99-0x90\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"events", "--list", "--event-dir", sb.path("bad").string()},
        std::vector<std::string>{"doctor", "--event-dir", sb.path("bad").string()},
        std::vector<std::string>{"run", "--event-dir", sb.path("bad").string(), "--region", "main", "--", "/bin/true"}}) {
    const RunResult r = sb.roofprof(args, isolated(sb));
    EXPECT_EQ(r.exit_code(), 2) << args[0] << "\n" << r.diag();
    EXPECT_NE(r.err.find(sb.path("bad/broken.txt").string() + ":4: model range '0x99-0x90' ends before it starts"),
              std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const RunResult missing = sb.roofprof({"events", "--event-dir", sb.path("absent").string()}, isolated(sb));
  EXPECT_EQ(missing.exit_code(), 2) << missing.diag();
  EXPECT_NE(missing.err.find("no such directory"), std::string::npos) << missing.err;
}

// A user set is what `roofprof run` counts with: on a scripted PMU (builds with test seams)
// whose CPU only the user's set knows, W comes from its events and weights.
TEST(Events, RunCountsWithAUserSet) {
  Sandbox sb;
  fs::create_directories(sb.path("mine"));
  write_text(sb.path("mine/futurex.txt"), kFuture);
  write_text(sb.path("pmu.script"), "cpu GenuineIntel 6 0xf1\ncount raw 0x3c7 0 1000\ncount raw 0x18c7 0 10\n");
  const RunResult r = sb.roofprof({"run", "--backend", "perf", "--event-dir", sb.path("mine").string(), "--region",
                                   "dgemm", "--", fixture("emul_kernels_O2"), "counts"},
                                  isolated(sb, {{"ROOFPROF_SCRIPTED_PMU", sb.path("pmu.script").string()},
                                                {"LIBPFM_FORCE_PMU", "perf"}}));
  if (r.err.find("ROOFPROF_SCRIPTED_PMU ignored") != std::string::npos) GTEST_SKIP() << "built without test seams";
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json d = region(load_result(r), "dgemm");
  EXPECT_DOUBLE_EQ(d["flops"].get<double>(), 1000 + 4 * 10) << d.dump();
  EXPECT_DOUBLE_EQ(d["flops_by_class"]["fp_x4"].get<double>(), 40) << d.dump();
}

}  // namespace
}  // namespace it
